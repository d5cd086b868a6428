/**
 * Printer properties (the /sfapi/ GetPrinterProperties shape) and blob capabilities in both
 * directions: the blob capabilities a properties object implies (when a connector uploaded only
 * properties), and the properties an admin's customizations produce (custom papers, trays,
 * resolutions and options replace the printer's; custom tray names shown, disabled trays removed,
 * color switched off). Pure; nothing to clean up.
 */
import {
  type BlobCapabilities,
  type BlobCapabilityName,
  BlobOption,
  type SimplifiedCapabilities,
} from './blob-capabilities.js';
import { CUSTOM_PAPER_ID } from './paper-sizes.js';
import type { PrinterCapabilityProperties, Tray } from './printer-properties.js';

/** The blob capabilities a properties object describes (no margins known: full printable area). */
export function blobFromProperties(p: PrinterCapabilityProperties): BlobCapabilities {
  const options =
    (p.DuplexSupported ? BlobOption.duplex : 0) |
    (p.ColorSupported ? BlobOption.color : 0) |
    (p.Collate ? BlobOption.collate : 0) |
    (p.MediaSupportedId.includes(CUSTOM_PAPER_ID) ? BlobOption.customPaper : 0) |
    (p.OrientationsSupportedId.includes(2) ? BlobOption.landscape : 0);
  const dpis = p.Resolutions.map((r) => Number.parseInt(r, 10)).filter((n) => Number.isInteger(n) && n > 0);
  const defaultDpi = Number.parseInt(p.Default.Resolution, 10);
  return {
    colors: {
      devmode: p.Color && p.ColorSupported ? 2 : 1,
      mono_num_colors: 2,
      color_num_colors: p.ColorSupported ? 16777216 : 2,
      mono_bits_pixel: 1,
      color_bits_pixel: p.ColorSupported ? 24 : 1,
      mono_planes: 1,
      color_planes: 1,
    },
    trays: p.Trays.flatMap((t) => (t ? [{ index: t.Index, name: t.Name, default: t.Default }] : [])),
    options,
    papers: p.PaperFormats.map((f) => ({
      index: f.Id,
      xsize: f.XRes,
      ysize: f.YRes,
      name: f.Name,
      default: f.Default,
      printable_area: {
        left_right_margins: 0,
        top_bottom_margins: 0,
        printable_width: f.XRes,
        printable_length: f.YRes,
      },
    })),
    resolutions: [...new Set(dpis)].map((value, i) => ({
      value,
      default: dpis.includes(defaultDpi) ? value === defaultDpi : i === 0,
    })),
  };
}

/** Color is supported when the options allow it and the colors describe more than two colors. */
function setColor(p: PrinterCapabilityProperties, blob: BlobCapabilities): void {
  p.ColorSupported = (blob.options & BlobOption.color) !== 0 && blob.colors.color_num_colors > 2;
  p.Color = p.ColorSupported && blob.colors.devmode === 2;
  p.Default = { ...p.Default, Color: p.Color ? 'Color' : 'Monochrome' };
}

type Overlay = (p: PrinterCapabilityProperties, blob: BlobCapabilities) => void;

const OVERLAYS: Record<BlobCapabilityName, Overlay> = {
  colors: (p, blob) => setColor(p, blob),
  options: (p, blob) => {
    p.DuplexSupported = (blob.options & BlobOption.duplex) !== 0;
    p.Collate = (blob.options & BlobOption.collate) !== 0;
    if (!p.DuplexSupported) p.DuplexMode = 1;
    setColor(p, blob);
  },
  trays: (p, blob) => {
    p.Trays = blob.trays.map((t) => ({ Index: t.index, Name: t.name, Default: t.default }));
    const chosen = blob.trays.find((t) => t.default) ?? blob.trays[0];
    p.Default = { ...p.Default, Tray: chosen?.name ?? '', TrayIndex: chosen?.index ?? 0 };
  },
  papers: (p, blob) => {
    p.PaperFormats = blob.papers.map((f) => ({
      Id: f.index,
      Name: f.name,
      XRes: f.xsize,
      YRes: f.ysize,
      Default: f.default,
    }));
    p.MediaSupported = blob.papers.map((f) => f.name);
    p.MediaSupportedId = blob.papers.map((f) => f.index);
    const chosen = blob.papers.find((f) => f.default) ?? blob.papers[0];
    if (chosen) p.Default = { ...p.Default, Paper: chosen.name, PaperId: chosen.index };
  },
  resolutions: (p, blob) => {
    p.Resolutions = blob.resolutions.map((r) => String(r.value));
    const chosen = blob.resolutions.find((r) => r.default) ?? blob.resolutions[0];
    p.Default = { ...p.Default, Resolution: chosen ? String(chosen.value) : 'Auto' };
  },
};

/**
 * The properties with the named capabilities of `blob` laid over them (the admin's custom
 * values, or all five when the properties come from blob defaults). `base` is not changed.
 */
export function overlayBlobOnProperties(
  base: PrinterCapabilityProperties,
  blob: BlobCapabilities,
  names: readonly BlobCapabilityName[],
): PrinterCapabilityProperties {
  const p: PrinterCapabilityProperties = structuredClone(base);
  for (const name of names) OVERLAYS[name](p, blob);
  return p;
}

/**
 * Applies the simplified view: trays shown with their custom names, disabled trays removed (the
 * default moves to the first remaining tray; none left: `Trays: [null]`, as for unknown trays),
 * color off when the admin switched it off. `base` is not changed.
 */
export function applySimplifiedToProperties(
  base: PrinterCapabilityProperties,
  simplified: SimplifiedCapabilities,
): PrinterCapabilityProperties {
  const p: PrinterCapabilityProperties = structuredClone(base);
  if (!simplified.color_supported) {
    p.ColorSupported = false;
    p.Color = false;
    p.Default = { ...p.Default, Color: 'Monochrome' };
  }
  if (simplified.trays.every((t) => t.enabled && t.name === null)) return p;
  const trays = p.Trays.flatMap((t): Tray[] => {
    if (!t) return [];
    const s = simplified.trays.find((x) => x.index === t.Index);
    if (s && !s.enabled) return [];
    return [{ ...t, Name: s?.name ?? t.Name }];
  });
  if (p.Trays.every((t) => t === null)) return p;
  const chosen = trays.find((t) => t.Index === p.Default.TrayIndex) ?? trays[0];
  p.Trays = trays.length > 0 ? trays.map((t) => ({ ...t, Default: t === chosen })) : [null];
  p.Default = { ...p.Default, Tray: chosen?.Name ?? '', TrayIndex: chosen?.Index ?? 0 };
  return p;
}
