/**
 * IPP printer attributes -> the cloud's blob capabilities (colors, trays, options, papers,
 * resolutions: the `default` side the connector uploads) and simplified capabilities
 * (color_supported, duplex_supported, trays with original_name). Pure; nothing to clean up.
 */
import { CUSTOM_PAPER_ID } from '../../../protocol/paper-sizes.js';
import type { PrinterAttributes } from '../../printer-backend.js';
import { type Margins, readPrinterMedia } from './ipp-media.js';
import { ippToPrinterProperties } from './ipp-to-properties.js';
import { asInteger, asResolution, values } from './ipp-values.js';

import {
  type BlobCapabilities,
  BlobOption,
  type BlobPaper,
  type BlobResolution,
  type PrintableArea,
  type SimplifiedCapabilities,
} from '../../../protocol/blob-capabilities.js';

// The wire types live in protocol/ (shared with the emulator); re-exported for existing importers.
export {
  type BlobCapabilities,
  type BlobCapabilityName,
  type BlobColors,
  BlobOption,
  type BlobPaper,
  type BlobResolution,
  type BlobTray,
  type PrintableArea,
  type SimplifiedCapabilities,
  type SimplifiedTray,
} from '../../../protocol/blob-capabilities.js';

function marginSupported(attrs: PrinterAttributes, side: string): number {
  const reported = values(attrs, `media-${side}-margin-supported`).map(asInteger);
  return Math.max(0, ...reported.filter((v): v is number => v !== undefined));
}

function printableArea(width: number, length: number, margins: Margins): PrintableArea {
  const leftRight = Math.round((margins.left + margins.right) / 10);
  const topBottom = Math.round((margins.top + margins.bottom) / 10);
  return {
    left_right_margins: leftRight,
    top_bottom_margins: topBottom,
    printable_width: width - leftRight,
    printable_length: length - topBottom,
  };
}

function blobPapers(attrs: PrinterAttributes, defaultId: number, defaultName: string): BlobPaper[] {
  const fallback: Margins = {
    top: marginSupported(attrs, 'top'),
    bottom: marginSupported(attrs, 'bottom'),
    left: marginSupported(attrs, 'left'),
    right: marginSupported(attrs, 'right'),
  };
  return readPrinterMedia(attrs).papers.map(({ paper, margins }) => ({
    index: paper.id,
    xsize: paper.width,
    ysize: paper.length,
    name: paper.name,
    default: paper.id === defaultId && paper.name === defaultName,
    printable_area: printableArea(paper.width, paper.length, margins ?? fallback),
  }));
}

function blobResolutions(attrs: PrinterAttributes): BlobResolution[] {
  const dpis = values(attrs, 'printer-resolution-supported')
    .map(asResolution)
    .flatMap((r) => (r ? [r.units === 'dpcm' ? Math.round(r.x * 2.54) : r.x] : []));
  const unique = [...new Set(dpis)];
  const reported = asResolution(values(attrs, 'printer-resolution-default')[0]);
  const chosen = reported && unique.includes(reported.x) ? reported.x : unique[0];
  return unique.map((value) => ({ value, default: value === chosen }));
}

/** The blob capability defaults of a printer, from its IPP attributes. */
export function ippToBlobCapabilities(attrs: PrinterAttributes): BlobCapabilities {
  const props = ippToPrinterProperties(attrs);
  const color = props.ColorSupported;
  const options =
    (props.DuplexSupported ? BlobOption.duplex : 0) |
    (color ? BlobOption.color : 0) |
    (props.Collate ? BlobOption.collate : 0) |
    (props.MediaSupportedId.includes(CUSTOM_PAPER_ID) ? BlobOption.customPaper : 0) |
    (props.OrientationsSupportedId.includes(2) ? BlobOption.landscape : 0);
  return {
    colors: {
      devmode: props.Color ? 2 : 1,
      mono_num_colors: 2,
      color_num_colors: color ? 16777216 : 2,
      mono_bits_pixel: 1,
      color_bits_pixel: color ? 24 : 1,
      mono_planes: 1,
      color_planes: 1,
    },
    trays: props.Trays.flatMap((t) => (t ? [{ index: t.Index, name: t.Name, default: t.Default }] : [])),
    options,
    papers: blobPapers(attrs, props.Default.PaperId, props.Default.Paper),
    resolutions: blobResolutions(attrs),
  };
}

/** The simplified capability defaults (no custom tray names, every tray enabled). */
export function ippToSimplifiedCapabilities(attrs: PrinterAttributes): SimplifiedCapabilities {
  const props = ippToPrinterProperties(attrs);
  return {
    color_supported: props.ColorSupported,
    duplex_supported: props.DuplexSupported,
    trays: props.Trays.flatMap((t) =>
      t ? [{ index: t.Index, name: null, original_name: t.Name, enabled: true }] : [],
    ),
  };
}
