/**
 * Readers for a printer's `*-supported` attributes as the ticket translation needs them. Values
 * arrive as decoded by ipp/ipp-attributes.ts (scalar or array; ranges {lower, upper};
 * resolutions {x, y, units}; collections as plain objects). Pure; nothing to clean up.
 */
import type { IppRange, IppResolution } from '../ipp/ipp-codec.js';
import type { PrinterAttributes } from '../printer-backend.js';

/** The values of `<name>-supported` as an array (empty when absent). */
export function supportedValues(printer: PrinterAttributes, name: string): unknown[] {
  const value = printer[`${name}-supported`];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function asRange(value: unknown): IppRange | undefined {
  if (typeof value === 'number') return { lower: value, upper: value };
  if (value === null || typeof value !== 'object') return undefined;
  const { lower, upper } = value as Partial<IppRange>;
  return typeof lower === 'number' && typeof upper === 'number' ? { lower, upper } : undefined;
}

/** A rangeOfInteger attribute (first value), or undefined. */
export function rangeOf(printer: PrinterAttributes, name: string): IppRange | undefined {
  const value = printer[name];
  return asRange(Array.isArray(value) ? value[0] : value);
}

/** A decoded resolution value, or undefined. */
export function resolutionOf(value: unknown): IppResolution | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const r = value as Partial<IppResolution>;
  if (typeof r.x !== 'number' || typeof r.y !== 'number') return undefined;
  return { x: r.x, y: r.y, units: r.units === 'dpcm' ? 'dpcm' : 'dpi' };
}

/**
 * Whether media-size-supported lists this size (hundredths of a millimetre): an exact entry
 * (within 1 mm) or a custom range entry whose x and y ranges contain it.
 */
export function mediaSizeSupported(printer: PrinterAttributes, x: number, y: number): boolean {
  return supportedValues(printer, 'media-size').some((entry) => {
    if (entry === null || typeof entry !== 'object') return false;
    const e = entry as Record<string, unknown>;
    return fits(e['x-dimension'], x) && fits(e['y-dimension'], y);
  });
}

function fits(dimension: unknown, wanted: number): boolean {
  if (typeof dimension === 'number') return Math.abs(dimension - wanted) <= 100;
  const range = asRange(dimension);
  return range !== undefined && wanted >= range.lower && wanted <= range.upper;
}
