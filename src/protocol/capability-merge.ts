/**
 * How admin customizations combine with a printer's own capabilities, shared by the emulator
 * (which stores and serves them) and the agent (which applies them to tickets):
 * blob customs over defaults (rule 1: a custom value replaces its default whole), simplified
 * capabilities with custom tray names and enabled flags (rule 2: original_name is fixed, names
 * unique), and the admin's simplified PATCH. Pure; nothing to clean up.
 */
import { ValidationError, ValidationErrors } from '../lib/errors.js';
import {
  BLOB_CAPABILITY_NAMES,
  type BlobCapabilities,
  type BlobCapabilityName,
  BlobOption,
  type SimplifiedCapabilities,
  type SimplifiedTray,
} from './blob-capabilities.js';

/** Custom values per capability; null or absent means "use the default". */
export type CustomCapabilities = { [K in BlobCapabilityName]?: BlobCapabilities[K] | null };

/** What an admin changed in the simplified view: color switched off, tray names and enabled flags. */
export interface SimplifiedCustom {
  /** false: color printing switched off by the admin; absent: as the printer offers. */
  color_supported?: boolean;
  /** Per tray index: custom name (null: none) and enabled flag. */
  trays?: Record<string, { name?: string | null; enabled?: boolean }>;
}

/** Each capability's custom value when set, else its default (never a field-by-field mix). */
export function mergeCustomCapabilities(
  defaults: BlobCapabilities,
  custom: CustomCapabilities,
): BlobCapabilities {
  const merged = { ...defaults };
  for (const name of BLOB_CAPABILITY_NAMES) {
    const value = custom[name];
    if (value !== undefined && value !== null) Object.assign(merged, { [name]: value });
  }
  return merged;
}

/**
 * Checks rule 2 on simplified trays: a tray's custom name must differ from every other tray's
 * custom name and from every other tray's original name (any letter case). Only custom names are
 * checked: a printer may name two of its own trays alike. Throws a ValidationError naming
 * `trays[<index>].name`.
 */
export function validateTrayNames(trays: SimplifiedTray[]): void {
  const custom = new Map<string, number>();
  for (const tray of trays) {
    if (tray.name === null) continue;
    const name = tray.name.toLowerCase();
    const clash =
      custom.get(name) ??
      trays.find((t) => t.index !== tray.index && t.original_name.toLowerCase() === name)?.index;
    if (clash !== undefined) {
      throw new ValidationError(`trays[${tray.index}].name`, `must not duplicate the name of tray ${clash}`);
    }
    custom.set(name, tray.index);
  }
}

/** The simplified view of blob capabilities: color and duplex from `options`, every tray enabled. */
export function simplifiedFromBlob(blob: BlobCapabilities): SimplifiedCapabilities {
  return {
    color_supported: (blob.options & BlobOption.color) !== 0,
    duplex_supported: (blob.options & BlobOption.duplex) !== 0,
    trays: blob.trays.map((t) => ({ index: t.index, name: null, original_name: t.name, enabled: true })),
  };
}

/** Applies the admin's simplified customizations; entries for trays that no longer exist are ignored. */
export function applySimplifiedCustom(
  base: SimplifiedCapabilities,
  custom: SimplifiedCustom,
): SimplifiedCapabilities {
  return {
    color_supported: base.color_supported && custom.color_supported !== false,
    duplex_supported: base.duplex_supported,
    trays: base.trays.map((t) => {
      const c = custom.trays?.[String(t.index)];
      return { ...t, name: c?.name ?? t.name, enabled: c?.enabled ?? t.enabled };
    }),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validates the body of PATCH .../capabilities/ against the current view (`base`: the printer's
 * simplified capabilities without customs, `current`: with them) and returns the new custom.
 * color_supported may only be switched off (or back on) where the printer has color;
 * duplex_supported and original_name may be echoed unchanged but never changed; trays name
 * existing indexes; names are non-empty, at most 255 characters, unique (rule 2).
 */
export function applySimplifiedPatch(
  base: SimplifiedCapabilities,
  current: SimplifiedCustom,
  body: unknown,
): SimplifiedCustom {
  if (!isObject(body)) throw new ValidationErrors([new ValidationError('body', 'must be a JSON object')]);
  const errors: ValidationError[] = [];
  const next: SimplifiedCustom = { ...current, trays: { ...current.trays } };
  for (const [key, value] of Object.entries(body)) {
    if (key === 'color_supported') patchColor(base, value, next, errors);
    else if (key === 'duplex_supported') {
      if (value !== base.duplex_supported)
        errors.push(
          new ValidationError(key, `cannot be changed (the printer reports ${base.duplex_supported})`),
        );
    } else if (key === 'trays') patchTrays(base, value, next, errors);
    else errors.push(new ValidationError(key, 'unknown field (allowed: color_supported, trays)'));
  }
  if (errors.length === 0) {
    try {
      validateTrayNames(applySimplifiedCustom(base, next).trays);
    } catch (error) {
      if (error instanceof ValidationError) errors.push(error);
      else throw error;
    }
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return next;
}

function patchColor(
  base: SimplifiedCapabilities,
  value: unknown,
  next: SimplifiedCustom,
  errors: ValidationError[],
): void {
  if (typeof value !== 'boolean')
    return void errors.push(new ValidationError('color_supported', 'must be a boolean'));
  if (value && !base.color_supported) {
    errors.push(new ValidationError('color_supported', 'the printer has no color: it can only be false'));
    return;
  }
  if (value) delete next.color_supported;
  else next.color_supported = false;
}

function patchTrays(
  base: SimplifiedCapabilities,
  value: unknown,
  next: SimplifiedCustom,
  errors: ValidationError[],
): void {
  if (!Array.isArray(value)) {
    errors.push(new ValidationError('trays', 'must be an array'));
    return;
  }
  for (const [i, item] of value.entries()) {
    const at = `trays[${i}]`;
    const tray = isObject(item) ? base.trays.find((t) => t.index === item['index']) : undefined;
    if (!isObject(item)) errors.push(new ValidationError(at, 'must be an object'));
    else if (!tray) {
      const known = base.trays.map((t) => t.index).join(', ') || 'none';
      errors.push(new ValidationError(`${at}.index`, `must be the index of a tray (${known})`));
    } else {
      const entry = patchTray(tray, item, at, { ...next.trays?.[String(tray.index)] }, errors);
      next.trays = { ...next.trays, [String(tray.index)]: entry };
    }
  }
}

type TrayCustom = { name?: string | null; enabled?: boolean };

/** One element of the PATCH's trays: name (null or the original clears it), enabled, original_name echoed. */
function patchTray(
  tray: SimplifiedTray,
  item: Record<string, unknown>,
  at: string,
  entry: TrayCustom,
  errors: ValidationError[],
): TrayCustom {
  for (const [key, v] of Object.entries(item)) {
    if (key === 'index') continue;
    if (key === 'original_name') {
      if (v !== tray.original_name)
        errors.push(new ValidationError(`${at}.original_name`, 'cannot be changed'));
    } else if (key === 'name') {
      if (v === null || v === '') entry.name = null;
      else if (typeof v === 'string' && v.trim() !== '' && v.length <= 255)
        entry.name = v === tray.original_name ? null : v;
      else
        errors.push(
          new ValidationError(`${at}.name`, 'must be a non-empty string of at most 255 characters, or null'),
        );
    } else if (key === 'enabled') {
      if (typeof v === 'boolean') entry.enabled = v;
      else errors.push(new ValidationError(`${at}.enabled`, 'must be a boolean'));
    } else errors.push(new ValidationError(`${at}.${key}`, 'unknown field (allowed: index, name, enabled)'));
  }
  return entry;
}

/** The wire form of blob capabilities in Printer and Driver objects: options, count, base64 JSON. */
export interface EncodedBlobCapabilities {
  options: number;
  /** Number of capabilities encoded (5). */
  count: number;
  /** Base64 of the JSON object of the five capabilities. */
  capabilities: string;
}

/** Encodes the five capabilities for a Printer or Driver object. */
export function encodeBlobCapabilities(blob: BlobCapabilities): EncodedBlobCapabilities {
  const json = JSON.stringify(blob);
  return { options: blob.options, count: BLOB_CAPABILITY_NAMES.length, capabilities: base64(json) };
}

/** Decodes what encodeBlobCapabilities produced. */
export function decodeBlobCapabilities(encoded: string): BlobCapabilities {
  return JSON.parse(fromBase64(encoded)) as BlobCapabilities;
}

// protocol/ is pure and has no node: imports: base64 of UTF-8 through the web platform globals.
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(encoded: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)));
}
