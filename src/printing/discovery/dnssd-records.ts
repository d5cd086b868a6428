/**
 * DNS-SD records of IPP printers -> discovered printers. From the PTR records of _ipp._tcp and
 * _ipps._tcp, each instance's SRV (host, port) and TXT (rp = resource path, ty = make and model,
 * UUID, pdl = document formats, note = location), and A/AAAA of the host, it builds
 * ipp://host:port/rp (ipps:// for _ipps). One printer announced on both services (same UUID
 * or same instance name) is kept once, as ipps. Pure and table-tested; nothing to clean up.
 */
import type { DiscoveredPrinter } from './discovery.js';

/** The record shapes multicast-dns / dns-packet hand out (only the fields read here). */
export interface MdnsRecord {
  name: string;
  type: string;
  data?: unknown;
}

/** The service types browsed. */
export const IPP_SERVICES = ['_ipp._tcp.local', '_ipps._tcp.local'] as const;

/** A printer found by DNS-SD, with its TXT facts. */
export interface DnsSdPrinter extends DiscoveredPrinter {
  uuid?: string;
  documentFormats: string[];
}

/** How addresses are used: the A/AAAA address (default, works without an mDNS resolver) or the host name. */
export interface DnsSdOptions {
  useAddresses?: boolean;
}

/** TXT data (Buffer or string chunks, or one string) -> key/value map, keys lower-cased. */
export function parseTxt(data: unknown): Record<string, string> {
  const chunks = Array.isArray(data) ? data : data === undefined || data === null ? [] : [data];
  const txt: Record<string, string> = {};
  for (const chunk of chunks) {
    const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'string' ? chunk : '';
    const eq = text.indexOf('=');
    const key = (eq === -1 ? text : text.slice(0, eq)).toLowerCase();
    if (key && !(key in txt)) txt[key] = eq === -1 ? '' : text.slice(eq + 1);
  }
  return txt;
}

/** The instance label of a service instance name ("Office._ipp._tcp.local" -> "Office"). */
export function instanceLabel(instance: string): string {
  const service = IPP_SERVICES.find((s) => instance.toLowerCase().endsWith(`.${s}`));
  const label = service ? instance.slice(0, -(service.length + 1)) : instance;
  return label
    .replace(/\\(\d{3})/g, (_, d: string) => String.fromCharCode(Number(d)))
    .replace(/\\(.)/g, '$1');
}

/** Builds printers from every record seen (answers and additionals of all responses). */
export function printersFromRecords(records: MdnsRecord[], options: DnsSdOptions = {}): DnsSdPrinter[] {
  const lower = (s: string) => s.toLowerCase();
  const byName = (type: string, name: string) =>
    records.find((r) => r.type === type && lower(r.name) === lower(name));
  const found = new Map<string, DnsSdPrinter>();
  for (const ptr of records.filter(
    (r) => r.type === 'PTR' && IPP_SERVICES.includes(lower(r.name) as never),
  )) {
    const instance = typeof ptr.data === 'string' ? ptr.data : undefined;
    const srv = instance
      ? (byName('SRV', instance)?.data as { target?: string; port?: number } | undefined)
      : undefined;
    if (!instance || !srv?.target || !srv.port) continue;
    const txt = parseTxt(byName('TXT', instance)?.data);
    const secure = lower(ptr.name).startsWith('_ipps.');
    const host = hostFor(records, srv.target, options.useAddresses ?? true);
    const path = (txt.rp ?? '').replace(/^\/+/, '');
    const name = instanceLabel(instance);
    const uuid = txt.uuid ? txt.uuid.toLowerCase() : undefined;
    const printer: DnsSdPrinter = {
      name,
      uri: `${secure ? 'ipps' : 'ipp'}://${host}:${srv.port}/${path}`,
      source: 'dnssd',
      makeAndModel: txt.ty || undefined,
      location: txt.note || undefined,
      uuid,
      documentFormats: (txt.pdl ?? '')
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    };
    const key = uuid ?? lower(name);
    const existing = found.get(key);
    if (!existing) found.set(key, printer);
    else if (secure && existing.uri.startsWith('ipp:')) found.set(key, merged(printer, existing));
    else found.set(key, merged(existing, printer));
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** `main` with the TXT facts it lacks taken from `other` (the same device on the other service). */
function merged(main: DnsSdPrinter, other: DnsSdPrinter): DnsSdPrinter {
  return {
    ...main,
    makeAndModel: main.makeAndModel ?? other.makeAndModel,
    location: main.location ?? other.location,
    uuid: main.uuid ?? other.uuid,
    documentFormats: main.documentFormats.length > 0 ? main.documentFormats : other.documentFormats,
  };
}

function hostFor(records: MdnsRecord[], target: string, useAddresses: boolean): string {
  const host = target.replace(/\.$/, '');
  if (!useAddresses) return host;
  const same = (r: MdnsRecord) => r.name.toLowerCase().replace(/\.$/, '') === host.toLowerCase();
  const v4 = records.find((r) => r.type === 'A' && same(r) && typeof r.data === 'string');
  if (v4) return v4.data as string;
  const v6 = records.find((r) => r.type === 'AAAA' && same(r) && typeof r.data === 'string');
  return v6 ? `[${v6.data as string}]` : host;
}

/** Service instances announced by PTR whose SRV or TXT has not been seen yet (to ask for them). */
export function incompleteInstances(records: MdnsRecord[]): string[] {
  const names = new Set(records.map((r) => `${r.type} ${r.name.toLowerCase()}`));
  const instances = records
    .filter(
      (r) =>
        r.type === 'PTR' &&
        IPP_SERVICES.includes(r.name.toLowerCase() as never) &&
        typeof r.data === 'string',
    )
    .map((r) => r.data as string);
  return [...new Set(instances)].filter(
    (i) => !names.has(`SRV ${i.toLowerCase()}`) || !names.has(`TXT ${i.toLowerCase()}`),
  );
}
