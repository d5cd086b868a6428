/**
 * IPP printer attributes -> the printer properties the connector uploads (the desktop
 * device-mode shape of /sfapi/GetPrinterProperties). Pure; nothing to clean up.
 *
 * Conventions other parts rely on: tray `Index` is the 1-based position in
 * media-source-supported; paper ids come from protocol/paper-sizes.ts, sizes the table lacks
 * appear in PaperFormats with id 256 and once as 'Custom' (256) in MediaSupported.
 */
import { ValidationError } from '../../../lib/errors.js';
import { CUSTOM_PAPER_ID, type PaperSize } from '../../../protocol/paper-sizes.js';
import type {
  PaperFormat,
  PrinterCapabilityProperties,
  PrinterDefaults,
  Tray,
} from '../../../protocol/printer-properties.js';
import type { PrinterAttributes } from '../../printer-backend.js';
import { readPrinterMedia } from './ipp-media.js';
import {
  asCollection,
  asInteger,
  asResolution,
  dpiLabel,
  firstBoolean,
  firstString,
  strings,
  values,
} from './ipp-values.js';

const SOURCE_NAMES: Record<string, string> = {
  auto: 'Automatic',
  manual: 'Manual feed',
  main: 'Main tray',
  alternate: 'Alternate tray',
  top: 'Top tray',
  middle: 'Middle tray',
  bottom: 'Bottom tray',
  side: 'Side tray',
  rear: 'Rear tray',
  envelope: 'Envelope feeder',
  'by-pass-tray': 'Bypass tray',
  'bypass-tray': 'Bypass tray',
  'multi-tray': 'Multi-purpose tray',
  'large-capacity': 'Large capacity tray',
  photo: 'Photo tray',
  disc: 'Disc tray',
  'main-roll': 'Main roll',
  'alternate-roll': 'Alternate roll',
};

/** A readable tray name for an IPP media-source keyword (tray-1 -> 'Tray 1', auto -> 'Automatic'). */
export function traySourceName(keyword: string): string {
  const known = SOURCE_NAMES[keyword];
  if (known) return known;
  const numbered = /^(tray|roll)-(\d+)$/.exec(keyword);
  if (numbered?.[1] && numbered[2]) return `${numbered[1] === 'tray' ? 'Tray' : 'Roll'} ${numbered[2]}`;
  const ordinal = /^(\d+)(?:st|nd|rd|th)?-tray$/.exec(keyword);
  if (ordinal?.[1]) return `Tray ${ordinal[1]}`;
  const words = keyword.split(/[-_]/).filter((w) => w.length > 0);
  return words.map((w, i) => (i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join(' ');
}

/** The printer's trays (Index = 1-based position in media-source-supported), or `[null]` when unknown. */
export function ippTrays(attrs: PrinterAttributes): (Tray | null)[] {
  const sources = strings(attrs, 'media-source-supported');
  if (sources.length === 0) return [null];
  const fallback = sources[0];
  const chosen = defaultSource(attrs) ?? fallback;
  const defaultKeyword = chosen && sources.includes(chosen) ? chosen : fallback;
  return sources.map((source, i) => ({
    Index: i + 1,
    Name: traySourceName(source),
    Default: source === defaultKeyword,
  }));
}

function defaultSource(attrs: PrinterAttributes): string | undefined {
  const direct = firstString(attrs, 'media-source-default');
  if (direct) return direct;
  const source = asCollection(values(attrs, 'media-col-default')[0])?.['media-source'];
  return typeof source === 'string' ? source : undefined;
}

const SIDES_TO_MODE: Record<string, number> = {
  'one-sided': 1,
  'two-sided-long-edge': 2,
  'two-sided-short-edge': 3,
};
const MODE_NAMES = ['', 'Simplex', 'Vertical', 'Horizontal'];

function duplexOf(attrs: PrinterAttributes): { supported: boolean; mode: number } {
  const sides = strings(attrs, 'sides-supported');
  const supported = sides.some((s) => s.startsWith('two-sided'));
  const mode = SIDES_TO_MODE[firstString(attrs, 'sides-default') ?? 'one-sided'] ?? 1;
  return { supported, mode: supported ? mode : 1 };
}

function colorOf(attrs: PrinterAttributes): { supported: boolean; current: boolean } {
  const modes = strings(attrs, 'print-color-mode-supported');
  const supported = modes.includes('color') || firstBoolean(attrs, 'color-supported') === true;
  const mode = firstString(attrs, 'print-color-mode-default');
  const current = supported && (mode === undefined || mode === 'color' || mode === 'auto');
  return { supported, current };
}

const ORIENTATION_ENUMS: Record<string, number> = {
  portrait: 3,
  landscape: 4,
  'reverse-landscape': 5,
  'reverse-portrait': 6,
  none: 7,
};

/** An orientation-requested value as its enum number (ipptool prints enum names). */
function orientationEnum(value: unknown): number | undefined {
  return typeof value === 'string' ? ORIENTATION_ENUMS[value] : asInteger(value);
}

function orientationsOf(attrs: PrinterAttributes): {
  names: string[];
  ids: number[];
  default: number | null;
} {
  const reported = values(attrs, 'orientation-requested-supported').map(orientationEnum);
  const ids = reported.length === 0 ? [1, 2] : [3, 4].filter((v) => reported.includes(v)).map((v) => v - 2);
  const requested = orientationEnum(values(attrs, 'orientation-requested-default')[0]);
  const preferred = requested === 3 || requested === 4 ? requested - 2 : null;
  const chosen = preferred !== null && ids.includes(preferred) ? preferred : null;
  return { names: ids.map((id) => (id === 1 ? 'portrait' : 'landscape')), ids, default: chosen };
}

function resolutionsOf(attrs: PrinterAttributes): { list: string[]; default: string } {
  const dpis = values(attrs, 'printer-resolution-supported')
    .map(asResolution)
    .flatMap((r) => (r ? [dpiLabel(r)] : []));
  const unique = [...new Set(dpis)];
  const withQuality = values(attrs, 'print-quality-supported').length > 0;
  const list = withQuality ? ['Auto', ...unique] : unique;
  const reportedDefault = asResolution(values(attrs, 'printer-resolution-default')[0]);
  const fallback = reportedDefault ? dpiLabel(reportedDefault) : (list[0] ?? 'Auto');
  return { list, default: withQuality ? 'Auto' : fallback };
}

function paperFormats(papers: PaperSize[], defaultPaper: PaperSize): PaperFormat[] {
  return papers.map((paper) => ({
    Id: paper.id,
    Name: paper.name,
    XRes: paper.width,
    YRes: paper.length,
    Default: paper === defaultPaper,
  }));
}

function mediaLists(papers: PaperSize[], customSizes: boolean): { names: string[]; ids: number[] } {
  const known = papers.filter((p) => p.id !== CUSTOM_PAPER_ID);
  const names = known.map((p) => p.name);
  const ids = known.map((p) => p.id);
  if (customSizes) {
    names.push('Custom');
    ids.push(CUSTOM_PAPER_ID);
  }
  return { names, ids };
}

/**
 * Translates a printer's IPP attributes into PrinterCapabilityProperties. Throws a
 * ValidationError naming media-supported when the printer reports no paper size at all.
 */
export function ippToPrinterProperties(attrs: PrinterAttributes): PrinterCapabilityProperties {
  const media = readPrinterMedia(attrs);
  const papers = media.papers.map((m) => m.paper);
  const defaultPaper = media.defaultPaper ?? papers[0];
  if (!defaultPaper) {
    throw new ValidationError('media-supported', 'must name at least one paper size (or media-col-database)');
  }
  const lists = mediaLists(papers, media.customSizes);
  const color = colorOf(attrs);
  const duplex = duplexOf(attrs);
  const orientations = orientationsOf(attrs);
  const resolutions = resolutionsOf(attrs);
  const trays = ippTrays(attrs);
  const defaultTray = trays.find((t) => t?.Default) ?? null;
  const defaults: PrinterDefaults = {
    Duplex: MODE_NAMES[duplex.mode] ?? 'Simplex',
    DuplexIndex: duplex.mode,
    Color: color.current ? 'Color' : 'Monochrome',
    Orientation: orientations.default === null ? null : orientations.default === 1 ? 'portrait' : 'landscape',
    OrientationIndex: orientations.default,
    Resolution: resolutions.default,
    Paper: defaultPaper.name,
    PaperId: defaultPaper.id,
    Tray: defaultTray?.Name ?? '',
    TrayIndex: defaultTray?.Index ?? 0,
  };
  return {
    Driver: firstString(attrs, 'printer-make-and-model') ?? firstString(attrs, 'printer-info') ?? 'Unknown',
    Collate: strings(attrs, 'multiple-document-handling-supported').includes(
      'separate-documents-collated-copies',
    ),
    Color: color.current,
    ColorSupported: color.supported,
    DuplexSupported: duplex.supported,
    DuplexMode: duplex.mode,
    MediaSupported: lists.names,
    MediaSupportedId: lists.ids,
    OrientationsSupported: orientations.names,
    OrientationsSupportedId: orientations.ids,
    PaperFormats: paperFormats(papers, defaultPaper),
    Resolutions: resolutions.list,
    Trays: trays,
    Default: defaults,
  };
}
