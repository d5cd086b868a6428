/**
 * IPP printer counters (PWG 5100.22 / 5100.13): printer-impressions-completed,
 * printer-media-sheets-completed and their `-col` forms, whose members split by colour and by
 * sides. `ippCounters` turns a Get-Printer-Attributes answer into a counter reading (pure);
 * IppCounterSource asks the printer. Many printers (ippeveprinter among them) report none of
 * these: the read then fails, and the station tries its next source.
 */
import type { Logger } from '../../log/logger.js';
import { IppClient } from '../../printing/ipp/ipp-client.js';
import type { PrinterAttributes } from '../../printing/printer-backend.js';
import { PrintRelayError } from '../../lib/errors.js';
import type { CounterSnapshot } from './copy-counting.js';
import type { CounterSource } from './counter-source.js';

/** The attributes asked for. */
export const IPP_COUNTER_ATTRIBUTES = [
  'printer-impressions-completed',
  'printer-impressions-completed-col',
  'printer-media-sheets-completed',
  'printer-media-sheets-completed-col',
] as const;

const COLOR_MEMBERS = ['full-color', 'full-color-two-sided', 'highlight-color', 'highlight-color-two-sided'];
const TWO_SIDED_MEMBERS = [
  'blank-two-sided',
  'full-color-two-sided',
  'highlight-color-two-sided',
  'monochrome-two-sided',
];

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function sumMembers(col: unknown, members: readonly string[]): number | undefined {
  if (!col || typeof col !== 'object' || Array.isArray(col)) return undefined;
  const values = members.map((m) => integer((col as Record<string, unknown>)[m]));
  if (values.every((v) => v === undefined)) return undefined;
  return values.reduce<number>((sum, v) => sum + (v ?? 0), 0);
}

/** A counter reading from printer attributes, or undefined when the printer has no impressions counter. */
export function ippCounters(attrs: PrinterAttributes): CounterSnapshot | undefined {
  const impressions = integer(attrs['printer-impressions-completed']);
  if (impressions === undefined) return undefined;
  const snapshot: CounterSnapshot = { impressions };
  const color = sumMembers(attrs['printer-impressions-completed-col'], COLOR_MEMBERS);
  if (color !== undefined) snapshot.color = color;
  const sheets = integer(attrs['printer-media-sheets-completed']);
  if (sheets !== undefined) snapshot.sheets = sheets;
  const duplex = sumMembers(attrs['printer-media-sheets-completed-col'], TWO_SIDED_MEMBERS);
  if (duplex !== undefined) snapshot.duplexSheets = duplex;
  return snapshot;
}

/** See the file comment; the client's connections are closed by close(). */
export class IppCounterSource implements CounterSource {
  readonly kind = 'ipp' as const;
  readonly includesReleased = true;
  private readonly client: IppClient;

  constructor(uri: string, logger: Logger, timeoutMs = 5000) {
    this.client = new IppClient({ uri, logger, timeoutMs });
  }

  async read(signal?: AbortSignal): Promise<CounterSnapshot> {
    const attrs = await this.client.getPrinterAttributes([...IPP_COUNTER_ATTRIBUTES], signal);
    const snapshot = ippCounters(attrs);
    if (!snapshot) {
      throw new PrintRelayError(
        'ipp_no_counters',
        `${this.client.printerUri} reports no printer-impressions-completed`,
      );
    }
    return snapshot;
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
