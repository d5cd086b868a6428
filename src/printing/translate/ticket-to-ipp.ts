/**
 * PrintTicket + the printer's IPP attributes -> IPP job template attributes for Print-Job. An
 * option the printer does not list as supported is left out and reported in `dropped` (the job
 * still prints, with the printer's default for that option). Pure and table-tested; nothing to
 * clean up. Units: the ticket uses tenths of a millimetre, IPP media-size hundredths.
 */
import { CUSTOM_PAPER_ID, paperById } from '../../protocol/paper-sizes.js';
import { normalizePageRanges } from '../../protocol/print-request.js';
import type { PageRange, PaperChoice, PrintTicket, TrayChoice } from '../../protocol/print-ticket.js';
import type { IppAttribute, IppCollection, IppResolution } from '../ipp/ipp-codec.js';
import { attr } from '../ipp/ipp-attributes.js';
import { TAG } from '../ipp/ipp-constants.js';
import type { PrinterAttributes } from '../printer-backend.js';
import { traySourceName } from './capabilities/ipp-to-properties.js';
import { mediaSizeSupported, rangeOf, resolutionOf, supportedValues } from './ipp-supported.js';

/** A ticket option the printer cannot honour, left out of the job. */
export interface DroppedOption {
  /** The PrintTicket field (copies, duplex, color, orientation, paper, tray, pageRanges, resolution, collate). */
  option: string;
  value: unknown;
  /** Why, for the job's warning log. */
  reason: string;
}

/** The job template attributes and what was dropped. */
export interface TicketTranslation {
  attributes: IppAttribute[];
  dropped: DroppedOption[];
}

const SIDES = {
  simplex: 'one-sided',
  'long-edge': 'two-sided-long-edge',
  'short-edge': 'two-sided-short-edge',
};
const ORIENTATION = { portrait: 3, landscape: 4 };
const QUALITY: Record<string, number> = {
  draft: 3,
  low: 3,
  fast: 3,
  normal: 4,
  standard: 4,
  high: 5,
  best: 5,
};

/** Translates a ticket for a printer described by `printer` (its Get-Printer-Attributes). */
export function ticketToIpp(ticket: PrintTicket, printer: PrinterAttributes): TicketTranslation {
  const out: TicketTranslation = { attributes: [], dropped: [] };
  const drop = (option: string, value: unknown, reason: string) =>
    out.dropped.push({ option, value, reason });
  const keywordOption = (option: string, name: string, value: string, tag = TAG.KEYWORD) => {
    if (supportedValues(printer, name).includes(value)) out.attributes.push(attr(tag, name, value));
    else drop(option, value, `${name} ${value} not in ${name}-supported`);
  };
  copiesOf(ticket.copies, printer, out, drop);
  if (ticket.duplex) keywordOption('duplex', 'sides', SIDES[ticket.duplex]);
  if (ticket.color !== undefined)
    keywordOption('color', 'print-color-mode', ticket.color ? 'color' : 'monochrome');
  if (ticket.orientation) {
    const value = ORIENTATION[ticket.orientation];
    if (supportedValues(printer, 'orientation-requested').includes(value)) {
      out.attributes.push(attr(TAG.ENUM, 'orientation-requested', value));
    } else drop('orientation', ticket.orientation, `orientation-requested ${value} not supported`);
  }
  mediaOf(ticket.paper, ticket.tray, printer, out, drop);
  if (ticket.pageRanges && ticket.pageRanges.length > 0) pageRangesOf(ticket.pageRanges, printer, out, drop);
  if (ticket.resolution) resolutionOrQuality(ticket.resolution, printer, out, drop);
  if (ticket.collate !== undefined) {
    const handling = ticket.collate
      ? 'separate-documents-collated-copies'
      : 'separate-documents-uncollated-copies';
    keywordOption('collate', 'multiple-document-handling', handling);
  }
  return out;
}

type Drop = (option: string, value: unknown, reason: string) => void;

function copiesOf(copies: number, printer: PrinterAttributes, out: TicketTranslation, drop: Drop): void {
  if (copies === 1) return;
  const range = rangeOf(printer, 'copies-supported');
  if (!Number.isInteger(copies) || copies < 1) drop('copies', copies, 'copies must be a positive integer');
  else if (range && copies >= range.lower && copies <= range.upper)
    out.attributes.push(attr(TAG.INTEGER, 'copies', copies));
  else
    drop(
      'copies',
      copies,
      range ? `copies-supported is ${range.lower}-${range.upper}` : 'copies-supported absent',
    );
}

function mediaOf(
  paper: PaperChoice | undefined,
  tray: TrayChoice | undefined,
  printer: PrinterAttributes,
  out: TicketTranslation,
  drop: Drop,
): void {
  const source = tray ? traySource(tray, printer) : undefined;
  if (tray && !source) drop('tray', tray, trayMissing(printer));
  const size = paper ? paperSize(paper, printer, drop) : undefined;
  if (!size && !source) return;
  if (size?.keyword && !source && supportedValues(printer, 'media').includes(size.keyword)) {
    out.attributes.push(attr(TAG.KEYWORD, 'media', size.keyword));
    return;
  }
  const members: IppAttribute[] = [];
  if (size) {
    const dims: IppCollection = {
      members: [attr(TAG.INTEGER, 'x-dimension', size.x), attr(TAG.INTEGER, 'y-dimension', size.y)],
    };
    members.push(attr(TAG.BEGIN_COLLECTION, 'media-size', dims));
  }
  if (source) members.push(attr(TAG.KEYWORD, 'media-source', source));
  out.attributes.push(attr(TAG.BEGIN_COLLECTION, 'media-col', { members }));
}

/** The size in hundredths of a millimetre, or undefined (dropped) when the printer cannot take it. */
function paperSize(
  paper: PaperChoice,
  printer: PrinterAttributes,
  drop: Drop,
): { x: number; y: number; keyword?: string } | undefined {
  if (paper.id === CUSTOM_PAPER_ID) {
    if (!paper.width || !paper.length || paper.width <= 0 || paper.length <= 0) {
      drop('paper', paper, 'custom paper (id 256) needs a positive width and length');
      return undefined;
    }
    const size = { x: paper.width * 10, y: paper.length * 10 };
    if (mediaSizeSupported(printer, size.x, size.y)) return size;
    drop(
      'paper',
      paper,
      `custom size ${paper.width / 10}x${paper.length / 10} mm not in media-size-supported`,
    );
    return undefined;
  }
  const known = paperById(paper.id);
  if (!known) {
    drop('paper', paper, `unknown paper id ${paper.id}`);
    return undefined;
  }
  const size = { x: known.width * 10, y: known.length * 10, keyword: known.pwg };
  if (supportedValues(printer, 'media').includes(known.pwg) || mediaSizeSupported(printer, size.x, size.y))
    return size;
  drop('paper', paper, `${known.pwg} not in media-supported`);
  return undefined;
}

/** Why a tray was dropped: the printer has no such tray, and which it has. */
function trayMissing(printer: PrinterAttributes): string {
  const sources = supportedValues(printer, 'media-source').filter((s): s is string => typeof s === 'string');
  const names = sources.map(traySourceName).join(', ');
  return `the printer has no such tray (it has: ${names || 'none listed'})`;
}

/**
 * What the user is told about dropped options (the job's Status text, `printrelay print`), one
 * line each: `tray "Tray 9": not applied, the printer has no such tray (it has: Main, Manual)`.
 */
export function notAppliedLines(dropped: readonly DroppedOption[]): string[] {
  return dropped.map((d) => `${d.option} ${optionValueText(d.value)}: not applied, ${d.reason}`);
}

function optionValueText(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value !== 'object' || value === null) return String(value);
  const tray = value as TrayChoice;
  if (tray.index !== undefined) return `#${tray.index}`;
  if (tray.name !== undefined) return `"${tray.name}"`;
  return JSON.stringify(value);
}

function traySource(tray: TrayChoice, printer: PrinterAttributes): string | undefined {
  const sources = supportedValues(printer, 'media-source').filter((s): s is string => typeof s === 'string');
  if (tray.index !== undefined) return sources[tray.index - 1];
  const wanted = tray.name?.trim().toLowerCase();
  if (!wanted) return undefined;
  return sources.find((s) => s.toLowerCase() === wanted || traySourceName(s).toLowerCase() === wanted);
}

function pageRangesOf(
  ranges: PageRange[],
  printer: PrinterAttributes,
  out: TicketTranslation,
  drop: Drop,
): void {
  if (supportedValues(printer, 'page-ranges')[0] !== true) {
    drop('pageRanges', ranges, 'page-ranges-supported is not true');
    return;
  }
  out.attributes.push(
    attr(
      TAG.RANGE_OF_INTEGER,
      'page-ranges',
      // IPP wants them ascending and disjoint; the spec lets apps send any order and overlaps.
      normalizePageRanges(ranges).map((r) => ({ lower: r.from, upper: r.to })),
    ),
  );
}

function resolutionOrQuality(
  wanted: NonNullable<PrintTicket['resolution']>,
  printer: PrinterAttributes,
  out: TicketTranslation,
  drop: Drop,
): void {
  const dpi = 'dpi' in wanted ? wanted.dpi : dpiFromWord(wanted.quality);
  if (dpi !== undefined) {
    const match = supportedValues(printer, 'printer-resolution')
      .map(resolutionOf)
      .find((r): r is IppResolution => r !== undefined && r.units === 'dpi' && r.x === dpi);
    if (match) out.attributes.push(attr(TAG.RESOLUTION, 'printer-resolution', match));
    else drop('resolution', wanted, `${dpi} dpi not in printer-resolution-supported`);
    return;
  }
  const word = (wanted as { quality: string }).quality.trim().toLowerCase();
  if (word === 'auto' || word === '') return;
  const quality = QUALITY[word];
  if (quality !== undefined && supportedValues(printer, 'print-quality').includes(quality)) {
    out.attributes.push(attr(TAG.ENUM, 'print-quality', quality));
  } else drop('resolution', wanted, `quality ${word} not in print-quality-supported`);
}

function dpiFromWord(word: string): number | undefined {
  const match = /^\s*(\d+)(?:\s*x\s*\d+)?\s*dpi\s*$/i.exec(word);
  return match ? Number(match[1]) : undefined;
}
