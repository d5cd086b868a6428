/**
 * Blob capabilities for tests: a monochrome 600 dpi printer with one tray and no papers, with
 * any part replaced by the caller; the colors of a colour printer for those that need one.
 */
import type { BlobCapabilities } from '../../src/protocol/blob-capabilities.js';

/** Colors of a monochrome printer. */
export const MONO_COLORS: BlobCapabilities['colors'] = {
  devmode: 1,
  mono_num_colors: 2,
  color_num_colors: 2,
  mono_bits_pixel: 1,
  color_bits_pixel: 1,
  mono_planes: 1,
  color_planes: 1,
};

/** Colors of a 24-bit colour printer. */
export const COLOR_COLORS: BlobCapabilities['colors'] = {
  devmode: 2,
  mono_num_colors: 2,
  color_num_colors: 16777216,
  mono_bits_pixel: 1,
  color_bits_pixel: 24,
  mono_planes: 1,
  color_planes: 1,
};

export function blobCapabilities(parts: Partial<BlobCapabilities> = {}): BlobCapabilities {
  return {
    colors: MONO_COLORS,
    trays: [{ index: 1, name: 'Tray 1', default: true }],
    options: 0,
    papers: [],
    resolutions: [{ value: 600, default: true }],
    ...parts,
  };
}
