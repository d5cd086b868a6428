/**
 * Printer discovery: each source (CUPS queues, Windows printers, DNS-SD on the LAN) is a
 * PrinterDiscoverer returning candidate printer entries (name, uri) or an error RESULT. A failed
 * source is never reported as "no printers": the printer sync must not delete every printer
 * because CUPS was restarting. discoverAll() runs the sources side by side and applies the
 * allow/deny filter to the successful ones. Nothing here holds resources.
 */
import { errorMessage } from '../../lib/errors.js';
import { type PrinterFilter, printerAllowed } from './printer-filter.js';

/** One printer a source found: the config entry it would become, plus what the source knows. */
export interface DiscoveredPrinter {
  /** Name to register (the queue name, the Windows printer name, the DNS-SD instance name). */
  name: string;
  /** The backend URI (cups://, winspool://, ipp://, ipps://). */
  uri: string;
  /** Which source found it (cups, winspool, dnssd). */
  source: string;
  makeAndModel?: string;
  location?: string;
}

/** What one source found, or why it could not look. */
export type DiscoveryResult =
  | { source: string; ok: true; printers: DiscoveredPrinter[] }
  | { source: string; ok: false; error: string };

/** A source of printers. discover() never throws: failures come back as `{ ok: false }`. */
export interface PrinterDiscoverer {
  readonly source: string;
  discover(signal?: AbortSignal): Promise<DiscoveryResult>;
}

/** Runs `find` and turns a throw into an error result naming the source. */
export async function discoveryResult(
  source: string,
  find: () => Promise<DiscoveredPrinter[]>,
): Promise<DiscoveryResult> {
  try {
    return { source, ok: true, printers: await find() };
  } catch (error) {
    return { source, ok: false, error: errorMessage(error) };
  }
}

/** Runs every source at once; the filter drops printers from successful results only. */
export async function discoverAll(
  discoverers: PrinterDiscoverer[],
  filter: PrinterFilter = {},
  signal?: AbortSignal,
): Promise<DiscoveryResult[]> {
  const results = await Promise.all(
    discoverers.map((d) =>
      d
        .discover(signal)
        .catch((error) => ({ source: d.source, ok: false as const, error: errorMessage(error) })),
    ),
  );
  return results.map((r) =>
    r.ok ? { ...r, printers: r.printers.filter((p) => printerAllowed(p, filter)) } : r,
  );
}

/** The config entry (name, uri, location) of a discovered printer, enabled. */
export function toPrinterEntry(printer: DiscoveredPrinter): {
  name: string;
  uri: string;
  location?: string;
  enabled: boolean;
} {
  return {
    name: printer.name,
    uri: printer.uri,
    ...(printer.location ? { location: printer.location } : {}),
    enabled: true,
  };
}
