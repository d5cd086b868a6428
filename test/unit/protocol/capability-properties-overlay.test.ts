import { describe, expect, it } from 'vitest';
import { type BlobCapabilities, BlobOption } from '../../../src/protocol/blob-capabilities.js';
import { blobFromProperties, overlayBlobOnProperties } from '../../../src/protocol/capability-properties.js';
import { a4PrinterProperties } from '../../support/printer-properties-fixture.js';

/** A colour printer with one tray that can print both sides (DuplexMode 2). */
const base = a4PrinterProperties({ DuplexMode: 2 });

const colors = {
  devmode: 2,
  mono_num_colors: 2,
  color_num_colors: 16777216,
  mono_bits_pixel: 1,
  color_bits_pixel: 24,
  mono_planes: 1,
  color_planes: 1,
};
const area = { left_right_margins: 0, top_bottom_margins: 0, printable_width: 1, printable_length: 1 };
const blob: BlobCapabilities = {
  colors,
  options: BlobOption.color,
  trays: [
    { index: 4, name: 'Bypass', default: false },
    { index: 7, name: 'Drawer', default: true },
  ],
  papers: [
    { index: 1, xsize: 2159, ysize: 2794, name: 'Letter', default: false, printable_area: area },
    { index: 5, xsize: 2159, ysize: 3556, name: 'Legal', default: true, printable_area: area },
  ],
  resolutions: [
    { value: 300, default: false },
    { value: 1200, default: true },
  ],
};

describe('overlayBlobOnProperties', () => {
  it('changes nothing for no names, and never the properties it is given', () => {
    const copy = structuredClone(base);
    expect(overlayBlobOnProperties(base, blob, [])).toEqual(base);
    overlayBlobOnProperties(base, blob, ['colors', 'options', 'trays', 'papers', 'resolutions']);
    expect(base).toEqual(copy);
  });
  it('colors: colour when the options allow it, more than two colours are described and devmode is 2', () => {
    const on = overlayBlobOnProperties(base, blob, ['colors']);
    expect([on.ColorSupported, on.Color, on.Default.Color]).toEqual([true, true, 'Color']);
    const mono = overlayBlobOnProperties(base, { ...blob, colors: { ...colors, devmode: 1 } }, ['colors']);
    expect([mono.ColorSupported, mono.Color, mono.Default.Color]).toEqual([true, false, 'Monochrome']);
    const two = overlayBlobOnProperties(base, { ...blob, colors: { ...colors, color_num_colors: 2 } }, [
      'colors',
    ]);
    expect([two.ColorSupported, two.Color, two.Default.Color]).toEqual([false, false, 'Monochrome']);
    const noOption = overlayBlobOnProperties(base, { ...blob, options: 0 }, ['colors']);
    expect([noOption.ColorSupported, noOption.Color]).toEqual([false, false]);
    expect(noOption.Default).toEqual({ ...base.Default, Color: 'Monochrome' });
  });
  it('options: duplex and collate from their bits; no duplex sets DuplexMode 1', () => {
    const none = overlayBlobOnProperties(base, { ...blob, options: 0 }, ['options']);
    expect([none.DuplexSupported, none.Collate, none.DuplexMode, none.ColorSupported]).toEqual([
      false,
      false,
      1,
      false,
    ]);
    const all = overlayBlobOnProperties(
      base,
      { ...blob, options: BlobOption.duplex | BlobOption.collate | BlobOption.color },
      ['options'],
    );
    expect([all.DuplexSupported, all.Collate, all.DuplexMode, all.ColorSupported]).toEqual([
      true,
      true,
      2,
      true,
    ]);
  });
  it('trays: the blob trays and the default one, else the first, else none', () => {
    const p = overlayBlobOnProperties(base, blob, ['trays']);
    expect(p.Trays).toEqual([
      { Index: 4, Name: 'Bypass', Default: false },
      { Index: 7, Name: 'Drawer', Default: true },
    ]);
    expect([p.Default.Tray, p.Default.TrayIndex]).toEqual(['Drawer', 7]);
    const first = overlayBlobOnProperties(
      base,
      { ...blob, trays: [{ index: 4, name: 'Bypass', default: false }] },
      ['trays'],
    );
    expect([first.Default.Tray, first.Default.TrayIndex]).toEqual(['Bypass', 4]);
    const none = overlayBlobOnProperties(base, { ...blob, trays: [] }, ['trays']);
    expect([none.Trays, none.Default.Tray, none.Default.TrayIndex]).toEqual([[], '', 0]);
  });
  it('papers: formats, media lists and the default paper, else the first; none keeps the default', () => {
    const p = overlayBlobOnProperties(base, blob, ['papers']);
    expect(p.PaperFormats).toEqual([
      { Id: 1, Name: 'Letter', XRes: 2159, YRes: 2794, Default: false },
      { Id: 5, Name: 'Legal', XRes: 2159, YRes: 3556, Default: true },
    ]);
    expect([p.MediaSupported, p.MediaSupportedId]).toEqual([
      ['Letter', 'Legal'],
      [1, 5],
    ]);
    expect([p.Default.Paper, p.Default.PaperId]).toEqual(['Legal', 5]);
    const first = overlayBlobOnProperties(
      base,
      { ...blob, papers: [{ ...blob.papers[0]!, default: false }] },
      ['papers'],
    );
    expect([first.Default.Paper, first.Default.PaperId]).toEqual(['Letter', 1]);
    const none = overlayBlobOnProperties(base, { ...blob, papers: [] }, ['papers']);
    expect([none.PaperFormats, none.Default]).toEqual([[], base.Default]);
  });
  it('resolutions: the values as text and the default one, else the first, else Auto', () => {
    const p = overlayBlobOnProperties(base, blob, ['resolutions']);
    expect([p.Resolutions, p.Default.Resolution]).toEqual([['300', '1200'], '1200']);
    const first = overlayBlobOnProperties(base, { ...blob, resolutions: [{ value: 300, default: false }] }, [
      'resolutions',
    ]);
    expect(first.Default.Resolution).toBe('300');
    const none = overlayBlobOnProperties(base, { ...blob, resolutions: [] }, ['resolutions']);
    expect([none.Resolutions, none.Default]).toEqual([[], { ...base.Default, Resolution: 'Auto' }]);
  });
});

describe('blobFromProperties', () => {
  it('keeps the positive dots-per-inch values once, and marks the default one', () => {
    const p = { ...base, Resolutions: ['Auto', '0', '-300', '300', '600', '600'] };
    expect(blobFromProperties({ ...p, Default: { ...base.Default, Resolution: '600' } }).resolutions).toEqual(
      [
        { value: 300, default: false },
        { value: 600, default: true },
      ],
    );
  });
  it('marks the first resolution default when the default is not among them', () => {
    const p = { ...base, Resolutions: ['300', '600'], Default: { ...base.Default, Resolution: 'Auto' } };
    expect(blobFromProperties(p).resolutions).toEqual([
      { value: 300, default: true },
      { value: 600, default: false },
    ]);
  });
  it('writes colour devmode 2 only for a colour default on a colour printer', () => {
    expect(blobFromProperties(base).colors.devmode).toBe(2);
    expect(blobFromProperties({ ...base, Color: false }).colors.devmode).toBe(1);
    expect(blobFromProperties({ ...base, ColorSupported: false }).colors.devmode).toBe(1);
  });
  it('has no trays for unknown trays', () => {
    expect(blobFromProperties({ ...base, Trays: [null] }).trays).toEqual([]);
  });
});
