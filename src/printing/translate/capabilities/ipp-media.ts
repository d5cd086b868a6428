/**
 * Media of a printer, read from media-supported, media-col-database, media-default and
 * media-col-default, resolved to desktop papers (protocol/paper-sizes.ts). Sizes the table does
 * not know are kept by PWG name with the custom id 256; custom_min/custom_max ranges only mark
 * that custom sizes are accepted. Pure; nothing to clean up.
 */
import {
  CUSTOM_PAPER_ID,
  customPwgName,
  type PaperSize,
  paperByPwgName,
  paperBySize,
} from '../../../protocol/paper-sizes.js';
import type { PrinterAttributes } from '../../printer-backend.js';
import { asCollection, asInteger, asRange, firstString, strings, values } from './ipp-values.js';

/** Margins in hundredths of a millimetre, as IPP media-*-margin. */
export interface Margins {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** One supported paper with the margins the printer reported for it (when it did). */
export interface MediaPaper {
  paper: PaperSize;
  margins?: Margins;
}

export interface PrinterMedia {
  /** Supported papers in the printer's order; each desktop id once, each custom-id size once. */
  papers: MediaPaper[];
  /** True when the printer accepts custom sizes (a custom range or a size the table lacks). */
  customSizes: boolean;
  /** The default paper, when the printer names one that is among `papers`. */
  defaultPaper?: PaperSize;
}

/** Tolerance when matching a reported size against the table: 1 mm. */
const SIZE_TOLERANCE = 10;

/** Width and length (tenths of a mm) from a self-describing PWG keyword, or undefined. */
export function sizeFromPwgName(keyword: string): { width: number; length: number } | undefined {
  const match = /_(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(mm|in)$/.exec(keyword);
  if (!match) return undefined;
  const factor = match[3] === 'in' ? 254 : 10;
  return { width: Math.round(Number(match[1]) * factor), length: Math.round(Number(match[2]) * factor) };
}

/** The paper for a media keyword: by name, then by size, else a custom (256) entry named by it. */
export function paperForKeyword(keyword: string): PaperSize | undefined {
  const known = paperByPwgName(keyword);
  if (known) return known;
  const size = sizeFromPwgName(keyword);
  if (!size) return undefined;
  return paperBySize(size.width, size.length, SIZE_TOLERANCE) ?? customSize(keyword, size.width, size.length);
}

/** The paper for a size in hundredths of a millimetre (IPP media-size). */
export function paperForIppSize(x: number, y: number): PaperSize {
  const width = Math.round(x / 10);
  const length = Math.round(y / 10);
  return (
    paperBySize(width, length, SIZE_TOLERANCE) ?? customSize(customPwgName(width, length), width, length)
  );
}

function customSize(pwg: string, width: number, length: number): PaperSize {
  return { id: CUSTOM_PAPER_ID, name: pwg, pwg, width, length };
}

function paperKey(paper: PaperSize): string {
  return paper.id === CUSTOM_PAPER_ID ? `size:${paper.width}x${paper.length}` : `id:${paper.id}`;
}

function isCustomRange(keyword: string): boolean {
  return keyword.startsWith('custom_min_') || keyword.startsWith('custom_max_');
}

interface ColEntry {
  paper?: PaperSize;
  range: boolean;
  margins?: Margins;
}

function readMediaCol(value: unknown): ColEntry | undefined {
  const col = asCollection(value);
  const size = asCollection(col?.['media-size']);
  if (!col || !size) return undefined;
  const x = asInteger(size['x-dimension']);
  const y = asInteger(size['y-dimension']);
  if (x === undefined || y === undefined) {
    const ranged = asRange(size['x-dimension']) !== undefined || asRange(size['y-dimension']) !== undefined;
    return ranged ? { range: true } : undefined;
  }
  return { paper: paperForIppSize(x, y), range: false, margins: readMargins(col) };
}

function readMargins(col: Record<string, unknown>): Margins | undefined {
  const top = asInteger(col['media-top-margin']);
  const bottom = asInteger(col['media-bottom-margin']);
  const left = asInteger(col['media-left-margin']);
  const right = asInteger(col['media-right-margin']);
  if (top === undefined || bottom === undefined || left === undefined || right === undefined)
    return undefined;
  return { top, bottom, left, right };
}

function marginTotal(m: Margins | undefined): number {
  return m ? m.top + m.bottom + m.left + m.right : -1;
}

/** Reads the printer's papers, whether it takes custom sizes, and its default paper. */
export function readPrinterMedia(attrs: PrinterAttributes): PrinterMedia {
  const byKey = new Map<string, MediaPaper>();
  let customSizes = false;
  const add = (paper: PaperSize, margins?: Margins): void => {
    if (paper.id === CUSTOM_PAPER_ID) customSizes = true;
    const existing = byKey.get(paperKey(paper));
    if (!existing) byKey.set(paperKey(paper), { paper, margins });
    // Prefer the bordered margins over the borderless (all-zero) variant of the same size.
    else if (marginTotal(margins) > marginTotal(existing.margins)) existing.margins = margins;
  };
  for (const keyword of strings(attrs, 'media-supported')) {
    if (isCustomRange(keyword)) customSizes = true;
    else {
      const paper = paperForKeyword(keyword);
      if (paper) add(paper);
    }
  }
  for (const value of values(attrs, 'media-col-database')) {
    const entry = readMediaCol(value);
    if (entry?.range) customSizes = true;
    if (entry?.paper) add(entry.paper, entry.margins);
  }
  const papers = [...byKey.values()];
  return { papers, customSizes, defaultPaper: readDefaultPaper(attrs, byKey) };
}

function readDefaultPaper(attrs: PrinterAttributes, byKey: Map<string, MediaPaper>): PaperSize | undefined {
  const keyword = firstString(attrs, 'media-default');
  const fromKeyword = keyword ? paperForKeyword(keyword) : undefined;
  const fromCol = readMediaCol(values(attrs, 'media-col-default')[0])?.paper;
  for (const candidate of [fromKeyword, fromCol]) {
    if (candidate && byKey.has(paperKey(candidate))) return byKey.get(paperKey(candidate))?.paper;
  }
  return undefined;
}
