/**
 * PrintTicket -> pdf-to-printer options (SumatraPDF -print-settings) for a Windows printer
 * described by windows-attributes.ts. Options the printer or SumatraPDF cannot honour are left
 * out and reported in `dropped`, as for IPP printers. Pure and table-tested; nothing to clean up.
 */
import { CUSTOM_PAPER_ID } from '../../protocol/paper-sizes.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { PrinterAttributes } from '../printer-backend.js';
import type { DroppedOption } from '../translate/ticket-to-ipp.js';

/** The subset of pdf-to-printer's PrintOptions PrintRelay sets. */
export interface PdfPrintOptions {
  printer: string;
  copies?: number;
  side?: 'simplex' | 'duplexlong' | 'duplexshort';
  monochrome?: boolean;
  orientation?: 'portrait' | 'landscape';
  /** DEVMODE dmPaperSize, the desktop paper id of the ticket. */
  paperKind?: number;
  bin?: string;
  pages?: string;
}

const SIDE = { simplex: 'simplex', 'long-edge': 'duplexlong', 'short-edge': 'duplexshort' } as const;
const SIDES_IPP = {
  simplex: 'one-sided',
  'long-edge': 'two-sided-long-edge',
  'short-edge': 'two-sided-short-edge',
} as const;

/** Translates a ticket for the printer `name` with attributes `printer`. */
export function ticketToPdfOptions(
  name: string,
  ticket: PrintTicket,
  printer: PrinterAttributes,
): { options: PdfPrintOptions; dropped: DroppedOption[] } {
  const options: PdfPrintOptions = { printer: name };
  const dropped: DroppedOption[] = [];
  const drop = (option: string, value: unknown, reason: string) => dropped.push({ option, value, reason });
  const list = (key: string) => (Array.isArray(printer[key]) ? (printer[key] as unknown[]) : [printer[key]]);
  if (ticket.copies !== 1) {
    const max = (printer['copies-supported'] as { upper?: number } | undefined)?.upper ?? 1;
    if (Number.isInteger(ticket.copies) && ticket.copies >= 1 && ticket.copies <= max)
      options.copies = ticket.copies;
    else drop('copies', ticket.copies, `copies must be 1-${max}`);
  }
  if (ticket.duplex) {
    if (list('sides-supported').includes(SIDES_IPP[ticket.duplex])) options.side = SIDE[ticket.duplex];
    else drop('duplex', ticket.duplex, 'the printer has no duplex unit');
  }
  if (ticket.color === true && printer['color-supported'] !== true)
    drop('color', true, 'the printer prints monochrome only');
  else if (ticket.color !== undefined) options.monochrome = !ticket.color;
  if (ticket.orientation) options.orientation = ticket.orientation;
  if (ticket.paper) {
    if (ticket.paper.id === CUSTOM_PAPER_ID)
      drop('paper', ticket.paper, 'custom sizes cannot be chosen through SumatraPDF');
    else options.paperKind = ticket.paper.id;
  }
  if (ticket.tray) {
    const bin =
      ticket.tray.name?.trim() || (ticket.tray.index !== undefined ? String(ticket.tray.index) : '');
    if (bin) options.bin = bin;
    else drop('tray', ticket.tray, 'tray needs a name or an index');
  }
  if (ticket.pageRanges && ticket.pageRanges.length > 0) {
    options.pages = ticket.pageRanges
      .map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`))
      .join(',');
  }
  if (ticket.resolution) drop('resolution', ticket.resolution, 'SumatraPDF prints at the driver resolution');
  if (ticket.collate !== undefined)
    drop('collate', ticket.collate, 'SumatraPDF uses the driver collation setting');
  return { options, dropped };
}
