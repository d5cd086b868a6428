/**
 * Optional DNS-SD (mDNS) discovery of IPP printers on the LAN with multicast-dns: asks for
 * _ipp._tcp.local and _ipps._tcp.local, follows up for instances whose SRV/TXT did not come
 * along, collects every response for a browse window, then builds ipp:// / ipps:// candidates
 * (dnssd-records.ts). Each discover() opens its own socket and destroys it before returning.
 * A socket error is an error result, never "no printers". multicast-dns is imported by the
 * first browse, so a process that never browses (an agent without `discovery.dnssd`) never loads it.
 */
import { sleep } from '../../lib/abort.js';
import type { Logger } from '../../log/logger.js';
import { type DiscoveryResult, discoveryResult, type PrinterDiscoverer } from './discovery.js';
import { IPP_SERVICES, incompleteInstances, type MdnsRecord, printersFromRecords } from './dnssd-records.js';

/** The part of a multicast-dns instance used here. */
export interface MdnsSocket {
  on(
    event: 'response',
    listener: (packet: { answers?: MdnsRecord[]; additionals?: MdnsRecord[] }) => void,
  ): unknown;
  on(event: 'error' | 'warning', listener: (error: Error) => void): unknown;
  query(query: { questions: { name: string; type: string }[] }): void;
  destroy(callback?: () => void): void;
}

/** Options of the DNS-SD discoverer. */
export interface DnsSdDiscovererOptions {
  logger: Logger;
  /** How long to listen for answers (default 2000 ms). */
  browseMs?: number;
  /** Use A/AAAA addresses in URIs (default) or the .local host names. */
  useAddresses?: boolean;
  /** Makes the socket; default multicast-dns with its defaults (224.0.0.251:5353). */
  createSocket?: () => MdnsSocket;
}

/** Browses the LAN for IPP printers. Construct, call discover(). */
export class DnsSdDiscoverer implements PrinterDiscoverer {
  readonly source = 'dnssd';

  constructor(private readonly options: DnsSdDiscovererOptions) {}

  async discover(signal?: AbortSignal): Promise<DiscoveryResult> {
    const result = await discoveryResult(this.source, () => this.browse(signal));
    if (!result.ok) this.options.logger.warn({ error: result.error }, 'DNS-SD discovery failed');
    return result;
  }

  private async browse(signal?: AbortSignal) {
    const socket = this.options.createSocket
      ? this.options.createSocket()
      : ((await import('multicast-dns')).default() as unknown as MdnsSocket);
    const records: MdnsRecord[] = [];
    let failure: Error | undefined;
    const asked = new Set<string>();
    socket.on('error', (error) => {
      failure = error;
    });
    socket.on('response', (packet) => {
      records.push(...(packet.answers ?? []), ...(packet.additionals ?? []));
      const missing = incompleteInstances(records).filter((i) => !asked.has(i));
      for (const i of missing) asked.add(i);
      if (missing.length > 0) {
        socket.query({
          questions: missing.flatMap((name) => [
            { name, type: 'SRV' },
            { name, type: 'TXT' },
          ]),
        });
      }
    });
    try {
      socket.query({ questions: IPP_SERVICES.map((name) => ({ name, type: 'PTR' })) });
      await sleep(this.options.browseMs ?? 2000, signal);
    } finally {
      await new Promise<void>((resolve) => socket.destroy(() => resolve()));
    }
    if (failure) throw failure;
    return printersFromRecords(records, { useAddresses: this.options.useAddresses });
  }
}
