/**
 * The body of /sfapi/Print: lenient parsing, strict validation. Keys arrive in any letter case
 * (PageRanges, defaultSource), values as strings too ("2", "true"), options at the top level and
 * inside `properties` (the top level wins), `fileurl` also as `fileUrl`. Every broken rule is
 * collected and thrown at once as ValidationErrors, each naming the field and the rule. Pure.
 */
import { ValidationError, ValidationErrors } from '../lib/errors.js';
import { CUSTOM_PAPER_ID, desktopPapers, paperById } from './paper-sizes.js';
import type { DuplexMode, PageRange, PaperChoice, PrintTicket, TrayChoice } from './print-ticket.js';
import { isSupportedExtension } from './sfapi-configuration.js';

/** Where the document comes from. */
export type PrintSource = { fileid: string } | { fileurl: string };

/** The Print fields the parser reads, lower-case (keys match in any letter case). */
export const PRINT_FIELDS: readonly string[] = Object.freeze([
  'fileid',
  'fileurl',
  'type',
  'printerid',
  'alias',
  'printanddelete',
  'paperid',
  'paperwidth',
  'paperlength',
  'color',
  'collate',
  'duplex',
  'duplexmode',
  'orientation',
  'copies',
  'resolution',
  'trayname',
  'defaultsource',
  'locale',
  'pageranges',
  'properties',
]);
/** Keys of the URL-referenced form, read when orientation or paperid is absent. */
const NAMED_OPTION_FIELDS = ['orientationssupported', 'mediasupported'];

/**
 * The fields of a Print body the parser does not read, as sent (`paper`, `properties.pages`):
 * what the lenient mode ignores and the strict mode refuses. Pure.
 */
export function ignoredPrintFields(body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const known = new Set([...PRINT_FIELDS, ...NAMED_OPTION_FIELDS]);
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!known.has(key.toLowerCase())) ignored.push(key);
    else if (
      key.toLowerCase() === 'properties' &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      for (const inner of Object.keys(value)) {
        if (!known.has(inner.toLowerCase()) || inner.toLowerCase() === 'properties')
          ignored.push(`${key}.${inner}`);
      }
    }
  }
  return ignored;
}

/** A validated Print request. */
export interface PrintRequest {
  source: PrintSource;
  /** Lower-case extension without a dot, one of the FILEEXT list. */
  type: string;
  /** Lower-case UUID. */
  printerId: string;
  /** The given alias; else the fileid; else the last path segment of the fileurl. */
  alias: string;
  printAndDelete: boolean;
  ticket: PrintTicket;
}

/** Limits of a custom paper size in tenths of a millimetre (10 mm to 5 m). */
export const CUSTOM_PAPER_LIMITS = Object.freeze({ min: 100, max: 50_000 });
/** Limits of `copies`. */
export const COPIES_LIMITS = Object.freeze({ min: 1, max: 999 });
/** Limits of a numeric resolution in dots per inch. */
export const DPI_LIMITS = Object.freeze({ min: 50, max: 9600 });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOCALE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;
const QUALITY = /^[A-Za-z][A-Za-z0-9 _-]{0,31}$/;

type Fields = Map<string, unknown>;

/** Reads raw fields and records every broken rule. */
class FieldReader {
  readonly errors: ValidationError[] = [];
  constructor(private readonly fields: Fields) {}

  fail(field: string, rule: string): undefined {
    this.errors.push(new ValidationError(field, rule));
    return undefined;
  }

  has(field: string): boolean {
    const value = this.fields.get(field.toLowerCase());
    return value !== undefined && value !== null && value !== '';
  }

  raw(field: string): unknown {
    return this.has(field) ? this.fields.get(field.toLowerCase()) : undefined;
  }

  string(field: string, maxLength = 2048): string | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    const trimmed = value.trim();
    if (trimmed.length > maxLength) return this.fail(field, `must be at most ${maxLength} characters`);
    return trimmed;
  }

  int(field: string, min: number, max: number): number | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    const text = typeof value === 'string' ? value.trim() : value;
    const n =
      typeof text === 'number' ? text : typeof text === 'string' && /^-?\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(n)) return this.fail(field, 'must be an integer');
    if (n < min || n > max) return this.fail(field, `must be between ${min} and ${max}`);
    return n;
  }

  bool(field: string): boolean | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value === 'boolean') return value;
    const text = String(value).trim().toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    return this.fail(field, 'must be a boolean (true or false)');
  }
}

/** Flattens the body: `properties` first, the top level over it; keys lower-cased. */
function collectFields(body: Record<string, unknown>): Fields {
  const fields: Fields = new Map();
  const properties = Object.entries(body).find(([k]) => k.toLowerCase() === 'properties')?.[1];
  if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
    for (const [key, value] of Object.entries(properties)) fields.set(key.toLowerCase(), value);
  }
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() !== 'properties') fields.set(key.toLowerCase(), value);
  }
  return fields;
}

/**
 * Parses and validates a Print body. Throws ValidationErrors listing every broken rule; a body
 * that is not a JSON object gives one error for the field `body`.
 */
export function parsePrintRequest(body: unknown): PrintRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationErrors([new ValidationError('body', 'must be a JSON object')]);
  }
  const r = new FieldReader(collectFields(body as Record<string, unknown>));
  const source = readSource(r);
  const type = readType(r);
  const printerId = readPrinterId(r);
  const alias = r.string('alias', 255);
  const printAndDelete = r.bool('printanddelete') ?? false;
  const ticket = readTicket(r);
  if (r.errors.length > 0) throw new ValidationErrors(r.errors);
  return {
    source: source!,
    type: type!,
    printerId: printerId!,
    alias: alias || defaultAlias(source!),
    printAndDelete,
    ticket,
  };
}

function defaultAlias(source: PrintSource): string {
  if ('fileid' in source) return source.fileid;
  const url = new URL(source.fileurl);
  const last = url.pathname.split('/').filter(Boolean).pop();
  if (!last) return url.hostname;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function readSource(r: FieldReader): PrintSource | undefined {
  const hasId = r.has('fileid');
  const hasUrl = r.has('fileurl');
  if (hasId === hasUrl) {
    return r.fail(
      'fileid',
      hasId ? 'must not be given together with fileurl' : 'exactly one of fileid and fileurl is required',
    );
  }
  if (hasId) {
    const fileid = r.string('fileid', 200);
    if (fileid === undefined) return undefined;
    if (!/^[A-Za-z0-9._~-]+$/.test(fileid)) return r.fail('fileid', 'must be an id from PrepareUpload');
    return { fileid };
  }
  const fileurl = r.string('fileurl', 8192);
  if (fileurl === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(fileurl);
  } catch {
    return r.fail('fileurl', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return r.fail('fileurl', 'must be an absolute http or https URL');
  }
  return { fileurl: url.href };
}

function readType(r: FieldReader): string | undefined {
  if (!r.has('type')) return r.fail('type', 'is required');
  const type = r.string('type', 16)?.replace(/^\./, '').toLowerCase();
  if (type === undefined) return undefined;
  if (!isSupportedExtension(type)) return r.fail('type', 'must be one of the FILEEXT extensions');
  return type;
}

function readPrinterId(r: FieldReader): string | undefined {
  if (!r.has('printerid')) return r.fail('printerid', 'is required');
  const id = r.string('printerid', 64);
  if (id === undefined) return undefined;
  if (!UUID.test(id)) return r.fail('printerid', 'must be a UUID');
  return id.toLowerCase();
}

function readTicket(r: FieldReader): PrintTicket {
  const ticket: PrintTicket = { copies: r.int('copies', COPIES_LIMITS.min, COPIES_LIMITS.max) ?? 1 };
  const color = r.bool('color');
  if (color !== undefined) ticket.color = color;
  const collate = r.bool('collate');
  if (collate !== undefined) ticket.collate = collate;
  const duplex = readDuplex(r);
  if (duplex) ticket.duplex = duplex;
  const orientation = readOrientation(r);
  if (orientation) ticket.orientation = orientation;
  const paper = readPaper(r);
  if (paper) ticket.paper = paper;
  const tray = readTray(r);
  if (tray) ticket.tray = tray;
  const pageRanges = readPageRanges(r);
  if (pageRanges) ticket.pageRanges = pageRanges;
  const resolution = readResolution(r);
  if (resolution) ticket.resolution = resolution;
  const locale = readLocale(r);
  if (locale) ticket.locale = locale;
  return ticket;
}

const DUPLEX_MODES: Record<number, DuplexMode> = { 1: 'simplex', 2: 'long-edge', 3: 'short-edge' };

function readDuplex(r: FieldReader): DuplexMode | undefined {
  const duplex = r.bool('duplex');
  const mode = r.int('duplexmode', 1, 3);
  if (mode !== undefined) {
    if (duplex === false && mode !== 1) return r.fail('duplexmode', 'contradicts duplex false');
    if (duplex === true && mode === 1) return r.fail('duplexmode', 'contradicts duplex true');
    return DUPLEX_MODES[mode];
  }
  if (duplex === undefined) return undefined;
  return duplex ? 'long-edge' : 'simplex';
}

function readOrientation(r: FieldReader): PrintTicket['orientation'] {
  if (r.has('orientation')) {
    const value = r.int('orientation', 1, 2);
    return value === undefined ? undefined : value === 1 ? 'portrait' : 'landscape';
  }
  // The URL-referenced form names the chosen orientation under OrientationsSupported.
  const named = r.string('orientationssupported', 32)?.toLowerCase();
  if (named === undefined) return undefined;
  if (named === 'portrait' || named === '1') return 'portrait';
  if (named === 'landscape' || named === '2') return 'landscape';
  return r.fail('OrientationsSupported', 'must be portrait or landscape');
}

function readPaper(r: FieldReader): PaperChoice | undefined {
  if (!r.has('paperid')) return readPaperByName(r);
  const id = r.int('paperid', 1, 0xffff);
  if (id === undefined) return undefined;
  if (id === CUSTOM_PAPER_ID) {
    const { min, max } = CUSTOM_PAPER_LIMITS;
    if (!r.has('paperwidth')) r.fail('paperwidth', 'is required when paperid is 256');
    if (!r.has('paperlength')) r.fail('paperlength', 'is required when paperid is 256');
    const width = r.int('paperwidth', min, max);
    const length = r.int('paperlength', min, max);
    if (width === undefined || length === undefined) return undefined;
    return { id, width, length };
  }
  const paper = paperById(id);
  if (!paper) return r.fail('paperid', 'must be a known desktop paper id or 256');
  return { id, name: paper.name };
}

/** The URL-referenced form names the chosen paper under MediaSupported. */
function readPaperByName(r: FieldReader): PaperChoice | undefined {
  const name = r.string('mediasupported', 64)?.toLowerCase();
  if (name === undefined) return undefined;
  const paper = desktopPapers.find((p) => p.name.toLowerCase() === name);
  if (!paper) return r.fail('MediaSupported', 'must be a known paper name');
  return { id: paper.id, name: paper.name };
}

function readTray(r: FieldReader): TrayChoice | undefined {
  const index = r.int('defaultsource', 0, 0xffff);
  const name = r.string('trayname', 255);
  if (index !== undefined) return { index };
  if (name) return { name };
  return undefined;
}

/**
 * Parses a page list as the spec writes it: comma-separated single pages or ranges with a
 * hyphen, positive, in any order and overlapping (`5,1-3`, `1-3,2-4`; a range written backwards,
 * `4-2`, means pages 2 to 4). The ranges keep the order given; normalizePageRanges merges them.
 */
export function parsePageRanges(text: string): PageRange[] | { rule: string } {
  const ranges: PageRange[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!match) return { rule: 'must be pages or ranges like 1-3,5' };
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1 || last < 1) return { rule: 'pages must be positive' };
    ranges.push({ from: Math.min(first, last), to: Math.max(first, last) });
  }
  return ranges;
}

/** Ascending, non-overlapping ranges covering the same pages (what IPP page-ranges requires). Pure. */
export function normalizePageRanges(ranges: readonly PageRange[]): PageRange[] {
  const sorted = [...ranges].sort((a, b) => a.from - b.from || a.to - b.to);
  const merged: PageRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.from <= last.to + 1) last.to = Math.max(last.to, range.to);
    else merged.push({ ...range });
  }
  return merged;
}

/** Pages a page list selects (each page once), e.g. 1-3,5 -> 4. Pure. */
export function pageCount(ranges: readonly PageRange[]): number {
  return normalizePageRanges(ranges).reduce((sum, r) => sum + r.to - r.from + 1, 0);
}

function readPageRanges(r: FieldReader): PageRange[] | undefined {
  const text = r.string('pageranges', 1024);
  if (text === undefined) return undefined;
  const parsed = parsePageRanges(text);
  if ('rule' in parsed) return r.fail('pageranges', parsed.rule);
  return parsed;
}

function readResolution(r: FieldReader): PrintTicket['resolution'] {
  const text = r.string('resolution', 32);
  if (text === undefined) return undefined;
  const dpi = /^(\d+)\s*(?:x\s*(\d+))?\s*(?:dpi)?$/i.exec(text);
  if (dpi) {
    const value = Number(dpi[1]);
    if (value < DPI_LIMITS.min || value > DPI_LIMITS.max) {
      return r.fail('resolution', `dots per inch must be between ${DPI_LIMITS.min} and ${DPI_LIMITS.max}`);
    }
    return { dpi: value };
  }
  if (!QUALITY.test(text)) return r.fail('resolution', 'must be dots per inch or a quality word');
  return { quality: text };
}

function readLocale(r: FieldReader): string | undefined {
  const text = r.string('locale', 35);
  if (text === undefined) return undefined;
  if (!LOCALE.test(text)) return r.fail('locale', 'must be a language tag such as en-US');
  return text.replace(/_/g, '-');
}
