/**
 * Readers for decoded IPP attribute values. Decoders differ (ipp-encoder leaves collections and
 * resolutions to the caller, ipptool's plist gives dictionaries), so each reader accepts the
 * usual shapes: a scalar or an array of them; resolutions as `{x, y, units}` or `"600dpi"` /
 * `"600x1200dpi"`; ranges as `{min, max}`, `{lower, upper}` or `"1-100"`. Pure; nothing to clean up.
 */
import type { PrinterAttributes } from '../../printer-backend.js';

/** The values of an attribute as an array (empty when absent). */
export function values(attrs: PrinterAttributes, name: string): unknown[] {
  const value = attrs[name];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The keyword/text values of an attribute (non-strings dropped). */
export function strings(attrs: PrinterAttributes, name: string): string[] {
  return values(attrs, name).filter((v): v is string => typeof v === 'string');
}

/** The first string value of an attribute, or undefined. */
export function firstString(attrs: PrinterAttributes, name: string): string | undefined {
  return strings(attrs, name)[0];
}

/** The first value as a boolean ("true"/"false" strings accepted), or undefined. */
export function firstBoolean(attrs: PrinterAttributes, name: string): boolean | undefined {
  const value = values(attrs, name)[0];
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/** A collection value as a plain object, or undefined. */
export function asCollection(value: unknown): Record<string, unknown> | undefined {
  const single = Array.isArray(value) ? value[0] : value;
  if (single !== null && typeof single === 'object' && !Array.isArray(single)) {
    return single as Record<string, unknown>;
  }
  return undefined;
}

/** An integer member value (single or first of an array, numeric strings accepted). */
export function asInteger(value: unknown): number | undefined {
  const single = Array.isArray(value) ? value[0] : value;
  if (typeof single === 'number' && Number.isFinite(single)) return single;
  if (typeof single === 'string' && /^-?\d+$/.test(single.trim())) return Number(single);
  return undefined;
}

export interface IntRange {
  min: number;
  max: number;
}

/** A rangeOfInteger value, or undefined when the value is not a range. */
export function asRange(value: unknown): IntRange | undefined {
  const single = Array.isArray(value) ? value[0] : value;
  if (typeof single === 'string') {
    const match = /^(\d+)-(\d+)$/.exec(single.trim());
    return match ? { min: Number(match[1]), max: Number(match[2]) } : undefined;
  }
  const obj = asCollection(single);
  if (!obj) return undefined;
  const min = asInteger(obj.min ?? obj.lower ?? obj.low);
  const max = asInteger(obj.max ?? obj.upper ?? obj.high);
  return min !== undefined && max !== undefined ? { min, max } : undefined;
}

export interface Resolution {
  x: number;
  y: number;
  /** dots per inch or per centimetre. */
  units: 'dpi' | 'dpcm';
}

/** A resolution value, or undefined when the value is not one. */
export function asResolution(value: unknown): Resolution | undefined {
  if (typeof value === 'string') {
    const match = /^(\d+)(?:x(\d+))?(dpi|dpcm)$/i.exec(value.trim());
    if (!match) return undefined;
    const x = Number(match[1]);
    return { x, y: match[2] ? Number(match[2]) : x, units: unitsOf(match[3]) };
  }
  const obj = asCollection(value);
  if (!obj) return undefined;
  const x = asInteger(obj.x ?? obj.xres ?? obj.cross);
  const y = asInteger(obj.y ?? obj.yres ?? obj.feed) ?? x;
  if (x === undefined || y === undefined) return undefined;
  return { x, y, units: unitsOf(obj.units ?? obj.unit) };
}

function unitsOf(value: unknown): 'dpi' | 'dpcm' {
  return value === 4 || (typeof value === 'string' && value.toLowerCase() === 'dpcm') ? 'dpcm' : 'dpi';
}

/** A resolution as a dpi string: '600', or '1440x720' when the axes differ (dpcm converted). */
export function dpiLabel(resolution: Resolution): string {
  const toDpi = (v: number): number => (resolution.units === 'dpcm' ? Math.round(v * 2.54) : v);
  const x = toDpi(resolution.x);
  const y = toDpi(resolution.y);
  return x === y ? String(x) : `${x}x${y}`;
}
