/**
 * The admin spec's blob capabilities of a printer (colors, trays, options, papers, resolutions)
 * and simplified capabilities, as wire types shared by the emulator and the agent, with the
 * strict shape check of one capability value (every problem named by its field path). Pure; no
 * I/O, nothing to clean up.
 */
import { ValidationError } from '../lib/errors.js';

/** The colors capability (DEVMODE color facts). */
export interface BlobColors {
  /** DEVMODE dmColor of the default: 1 monochrome, 2 color. */
  devmode: number;
  mono_num_colors: number;
  color_num_colors: number;
  mono_bits_pixel: number;
  color_bits_pixel: number;
  mono_planes: number;
  color_planes: number;
}

/** One tray (paper source) of the trays capability. */
export interface BlobTray {
  index: number;
  name: string;
  default: boolean;
}

/** Margins and printable size of a paper, tenths of a millimetre. */
export interface PrintableArea {
  /** Sum of left and right margins, tenths of a millimetre. */
  left_right_margins: number;
  /** Sum of top and bottom margins, tenths of a millimetre. */
  top_bottom_margins: number;
  printable_width: number;
  printable_length: number;
}

/** One paper of the papers capability. */
export interface BlobPaper {
  /** Desktop paper id (256 for sizes without one). */
  index: number;
  /** Width in tenths of a millimetre. */
  xsize: number;
  /** Length in tenths of a millimetre. */
  ysize: number;
  name: string;
  default: boolean;
  printable_area: PrintableArea;
}

/** One resolution of the resolutions capability. */
export interface BlobResolution {
  /** Dots per inch (horizontal). */
  value: number;
  default: boolean;
}

/** The five blob capabilities, one value each (a default or a custom). */
export interface BlobCapabilities {
  colors: BlobColors;
  trays: BlobTray[];
  options: number;
  papers: BlobPaper[];
  resolutions: BlobResolution[];
}

/** colors, trays, options, papers or resolutions. */
export type BlobCapabilityName = keyof BlobCapabilities;

/** The capability names in the spec's order. */
export const BLOB_CAPABILITY_NAMES: readonly BlobCapabilityName[] = [
  'colors',
  'trays',
  'options',
  'papers',
  'resolutions',
];

/** Bits of the `options` capability. */
export const BlobOption = {
  duplex: 1,
  color: 2,
  collate: 4,
  customPaper: 8,
  landscape: 16,
} as const;

/** A tray as the simplified capabilities show it. */
export interface SimplifiedTray {
  index: number;
  /** Custom name set by an admin; null when unset. */
  name: string | null;
  /** The printer's own tray name; never changes. */
  original_name: string;
  enabled: boolean;
}

/** The spec's simplified printer capabilities. */
export interface SimplifiedCapabilities {
  color_supported: boolean;
  duplex_supported: boolean;
  trays: SimplifiedTray[];
}

/** True when `name` is one of the five capability names. */
export function isBlobCapabilityName(name: string): name is BlobCapabilityName {
  return (BLOB_CAPABILITY_NAMES as readonly string[]).includes(name);
}

type Errors = ValidationError[];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function int(v: unknown, path: string, errors: Errors, min: number, max = 2147483647): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    errors.push(new ValidationError(path, `must be an integer from ${min} to ${max}`));
  }
}

function keys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  errors: Errors,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) errors.push(new ValidationError(`${path}.${key}`, 'unknown field'));
  }
  for (const key of allowed) {
    if (!(key in value)) errors.push(new ValidationError(`${path}.${key}`, 'required'));
  }
}

function text(v: unknown, path: string, errors: Errors): void {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 255) {
    errors.push(new ValidationError(path, 'must be a non-empty string of at most 255 characters'));
  }
}

function bool(v: unknown, path: string, errors: Errors): void {
  if (typeof v !== 'boolean') errors.push(new ValidationError(path, 'must be a boolean'));
}

/**
 * Runs `check` on `item[key]` only when the field is there: a missing field has its one
 * `required` error from `keys` and is not also blamed for its type.
 */
function given(
  item: Record<string, unknown>,
  key: string,
  at: string,
  check: (v: unknown, path: string) => void,
): void {
  if (key in item) check(item[key], `${at}.${key}`);
}

/** Checks an array of objects: each element's keys, plus unique `unique` values and at most one default. */
function list(
  value: unknown,
  path: string,
  errors: Errors,
  fields: readonly string[],
  unique: string,
  each: (item: Record<string, unknown>, at: string) => void,
): void {
  if (!Array.isArray(value)) {
    errors.push(new ValidationError(path, 'must be an array'));
    return;
  }
  const seen = new Set<unknown>();
  let defaults = 0;
  value.forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(item)) {
      errors.push(new ValidationError(at, 'must be an object'));
      return;
    }
    keys(item, fields, at, errors);
    each(item, at);
    if (item['default'] === true) defaults++;
    if (!(unique in item)) return;
    const key = typeof item[unique] === 'string' ? (item[unique] as string).toLowerCase() : item[unique];
    if (seen.has(key)) errors.push(new ValidationError(`${at}.${unique}`, `must be unique in ${path}`));
    seen.add(key);
  });
  if (defaults > 1) errors.push(new ValidationError(path, 'at most one element may be the default'));
}

const COLOR_FIELDS = [
  'devmode',
  'mono_num_colors',
  'color_num_colors',
  'mono_bits_pixel',
  'color_bits_pixel',
  'mono_planes',
  'color_planes',
] as const;
const AREA_FIELDS = ['left_right_margins', 'top_bottom_margins', 'printable_width', 'printable_length'];

const CHECKS: Record<BlobCapabilityName, (value: unknown, path: string, errors: Errors) => void> = {
  colors: (value, path, errors) => {
    if (!isObject(value)) return void errors.push(new ValidationError(path, 'must be an object'));
    keys(value, COLOR_FIELDS, path, errors);
    for (const f of COLOR_FIELDS) if (f in value && f !== 'devmode') int(value[f], `${path}.${f}`, errors, 0);
    if ('devmode' in value && value['devmode'] !== 1 && value['devmode'] !== 2) {
      errors.push(new ValidationError(`${path}.devmode`, 'must be 1 (monochrome) or 2 (color)'));
    }
  },
  trays: (value, path, errors) =>
    list(value, path, errors, ['index', 'name', 'default'], 'index', (t, at) => {
      given(t, 'index', at, (v, path) => int(v, path, errors, 0, 65535));
      given(t, 'name', at, (v, path) => text(v, path, errors));
      given(t, 'default', at, (v, path) => bool(v, path, errors));
    }),
  options: (value, path, errors) => int(value, path, errors, 0),
  papers: (value, path, errors) =>
    list(
      value,
      path,
      errors,
      ['index', 'xsize', 'ysize', 'name', 'default', 'printable_area'],
      'name',
      (p, at) => {
        given(p, 'index', at, (v, path) => int(v, path, errors, 1, 65535));
        given(p, 'xsize', at, (v, path) => int(v, path, errors, 1));
        given(p, 'ysize', at, (v, path) => int(v, path, errors, 1));
        given(p, 'name', at, (v, path) => text(v, path, errors));
        given(p, 'default', at, (v, path) => bool(v, path, errors));
        checkArea(p, `${at}.printable_area`, errors);
      },
    ),
  resolutions: (value, path, errors) =>
    list(value, path, errors, ['value', 'default'], 'value', (r, at) => {
      given(r, 'value', at, (v, path) => int(v, path, errors, 1, 100000));
      given(r, 'default', at, (v, path) => bool(v, path, errors));
    }),
};

function checkArea(paper: Record<string, unknown>, path: string, errors: Errors): void {
  const area = paper['printable_area'];
  if (!('printable_area' in paper)) return;
  if (!isObject(area)) return void errors.push(new ValidationError(path, 'must be an object'));
  keys(area, AREA_FIELDS, path, errors);
  for (const f of AREA_FIELDS) if (f in area) int(area[f], `${path}.${f}`, errors, 0);
  const fits = (size: unknown, margins: unknown, printable: unknown): boolean =>
    typeof size !== 'number' ||
    typeof margins !== 'number' ||
    typeof printable !== 'number' ||
    margins + printable <= size;
  if (!fits(paper['xsize'], area['left_right_margins'], area['printable_width'])) {
    errors.push(
      new ValidationError(`${path}.printable_width`, 'plus left_right_margins must not exceed xsize'),
    );
  }
  if (!fits(paper['ysize'], area['top_bottom_margins'], area['printable_length'])) {
    errors.push(
      new ValidationError(`${path}.printable_length`, 'plus top_bottom_margins must not exceed ysize'),
    );
  }
}

/**
 * Checks one capability value against its shape; returns every problem (empty when valid),
 * each naming its path below `path` (for example `custom.trays[1].name`).
 */
export function checkBlobCapability(
  name: BlobCapabilityName,
  value: unknown,
  path: string,
): ValidationError[] {
  const errors: ValidationError[] = [];
  CHECKS[name](value, path, errors);
  return errors;
}

/** Checks all five capabilities of an object (the connector's upload of defaults). */
export function checkBlobCapabilities(value: unknown, path: string): ValidationError[] {
  if (!isObject(value)) return [new ValidationError(path, 'must be an object with the five capabilities')];
  const errors: ValidationError[] = [];
  keys(value, BLOB_CAPABILITY_NAMES, path, errors);
  for (const name of BLOB_CAPABILITY_NAMES) {
    if (name in value) errors.push(...checkBlobCapability(name, value[name], `${path}.${name}`));
  }
  return errors;
}
