/**
 * The discovery sources this machine has: the Windows spooler on Windows, CUPS elsewhere (the
 * server from CUPS_SERVER when it names host[:port], else localhost:631), and DNS-SD when asked.
 * The one place outside the backends that looks at the platform, passed in for tests.
 * Nothing to clean up.
 */
import type { Logger } from '../../log/logger.js';
import { CupsDiscoverer, type CupsServer } from '../cups/cups-printers.js';
import { WindowsDiscoverer } from '../windows/windows-discovery.js';
import type { PrinterDiscoverer } from './discovery.js';
import { DnsSdDiscoverer } from './dnssd-discovery.js';

/** Which sources to build. */
export interface MachineDiscoveryOptions {
  logger: Logger;
  /** Also browse the LAN with DNS-SD (default false). */
  dnssd?: boolean;
  /** DNS-SD browse window in ms. */
  browseMs?: number;
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
}

/** The CUPS server named by CUPS_SERVER (host or host:port); a socket path or nothing -> localhost:631. */
export function cupsServerFromEnv(env: Record<string, string | undefined>): CupsServer {
  const value = env.CUPS_SERVER?.trim();
  const match = value ? /^([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}))?$/i.exec(value) : null;
  if (!match?.[1]) return { host: 'localhost', port: 631 };
  return { host: match[1].replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : 631 };
}

/** The discoverers for this machine. */
export function machineDiscoverers(options: MachineDiscoveryOptions): PrinterDiscoverer[] {
  const platform = options.platform ?? process.platform;
  const list: PrinterDiscoverer[] =
    platform === 'win32'
      ? [new WindowsDiscoverer({ logger: options.logger })]
      : [
          new CupsDiscoverer({
            logger: options.logger,
            server: cupsServerFromEnv(options.env ?? process.env),
          }),
        ];
  if (options.dnssd) list.push(new DnsSdDiscoverer({ logger: options.logger, browseMs: options.browseMs }));
  return list;
}
