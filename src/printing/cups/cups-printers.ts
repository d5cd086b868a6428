/**
 * Listing the queues of a CUPS server with CUPS's own IPP operation CUPS-Get-Printers (0x4002)
 * on ipp://host:port/, and the CupsDiscoverer built on it. The request goes through the shared
 * IPP codec and transport (printing/ipp/), one connection per call, nothing to clean up.
 */
import type { Logger } from '../../log/logger.js';
import { encodeMessage } from '../ipp/ipp-codec.js';
import { attr, firstNumber, firstText, groupRecord, groupRecords } from '../ipp/ipp-attributes.js';
import { TAG } from '../ipp/ipp-constants.js';
import { errorForStatus } from '../ipp/ipp-errors.js';
import { exchange, parseIppTarget } from '../ipp/ipp-transport.js';
import type { PrinterAttributes } from '../printer-backend.js';
import {
  type DiscoveredPrinter,
  type DiscoveryResult,
  discoveryResult,
  type PrinterDiscoverer,
} from '../discovery/discovery.js';
import { cupsUri, isValidQueueName } from './cups-uri.js';

/** CUPS's operation id for CUPS-Get-Printers (not in the IPP standard tables). */
export const CUPS_GET_PRINTERS = 0x4002;

/** printer-type bits (cups/cups.h): a class, a remote printer, a discovered (temporary) one. */
const CUPS_PRINTER_CLASS = 0x0001;

const REQUESTED = [
  'printer-name',
  'printer-info',
  'printer-location',
  'printer-make-and-model',
  'printer-state',
  'printer-type',
  'printer-uri-supported',
  'device-uri',
];

/** A CUPS server address. */
export interface CupsServer {
  host: string;
  port: number;
}

/** Sends CUPS-Get-Printers; one attribute record per queue (and class). */
export async function cupsGetPrinters(
  server: CupsServer,
  signal?: AbortSignal,
  timeoutMs = 10_000,
): Promise<PrinterAttributes[]> {
  const host = server.host.includes(':') ? `[${server.host}]` : server.host;
  const target = parseIppTarget(`ipp://${host}:${server.port}/`);
  const header = encodeMessage({
    version: { major: 2, minor: 0 },
    code: CUPS_GET_PRINTERS,
    requestId: 1,
    groups: [
      {
        tag: TAG.OPERATION,
        attributes: [
          attr(TAG.CHARSET, 'attributes-charset', 'utf-8'),
          attr(TAG.NATURAL_LANGUAGE, 'attributes-natural-language', 'en'),
          attr(TAG.NAME, 'requesting-user-name', 'printrelay'),
          attr(TAG.KEYWORD, 'requested-attributes', REQUESTED),
        ],
      },
    ],
  });
  const response = await exchange(target, header, {
    operation: 'CUPS-Get-Printers',
    signal,
    timeoutMs,
    repeatable: true,
  });
  // CUPS answers client-error-not-found when it has no queues at all: that is an empty list.
  if (response.code === 0x0406) return [];
  const message = firstText(groupRecord(response, TAG.OPERATION), 'status-message');
  const error = errorForStatus(response.code, 'CUPS-Get-Printers', message);
  if (error) throw error;
  return groupRecords(response, TAG.PRINTER);
}

/** Queue records -> discovered printers (classes skipped). Pure. */
export function cupsQueuesToPrinters(records: PrinterAttributes[], server: CupsServer): DiscoveredPrinter[] {
  const printers: DiscoveredPrinter[] = [];
  for (const record of records) {
    const name = firstText(record, 'printer-name');
    if (!name || !isValidQueueName(name)) continue;
    if (((firstNumber(record, 'printer-type') ?? 0) & CUPS_PRINTER_CLASS) !== 0) continue;
    printers.push({
      name,
      uri: cupsUri(name, server),
      source: 'cups',
      makeAndModel: firstText(record, 'printer-make-and-model'),
      location: firstText(record, 'printer-location') || undefined,
    });
  }
  return printers;
}

/** Discovers the queues of one CUPS server. Construct, call discover(); nothing to clean up. */
export class CupsDiscoverer implements PrinterDiscoverer {
  readonly source = 'cups';

  constructor(private readonly options: { logger: Logger; server?: CupsServer }) {}

  async discover(signal?: AbortSignal): Promise<DiscoveryResult> {
    const server = this.options.server ?? { host: 'localhost', port: 631 };
    const result = await discoveryResult(this.source, async () =>
      cupsQueuesToPrinters(await cupsGetPrinters(server, signal), server),
    );
    if (!result.ok)
      this.options.logger.warn(
        { server: `${server.host}:${server.port}`, error: result.error },
        'CUPS discovery failed',
      );
    return result;
  }
}
