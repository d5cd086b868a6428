import { describe, expect, it } from 'vitest';
import { ValidationError, ValidationErrors } from '../../../src/lib/errors.js';
import {
  type BlobCapabilities,
  checkBlobCapabilities,
  type SimplifiedCapabilities,
} from '../../../src/protocol/blob-capabilities.js';
import {
  applySimplifiedCustom,
  applySimplifiedPatch,
  decodeBlobCapabilities,
  encodeBlobCapabilities,
  mergeCustomCapabilities,
  simplifiedFromBlob,
  validateTrayNames,
} from '../../../src/protocol/capability-merge.js';
import {
  applySimplifiedToProperties,
  blobFromProperties,
  overlayBlobOnProperties,
} from '../../../src/protocol/capability-properties.js';
import { a4PrinterProperties } from '../../support/printer-properties-fixture.js';

const blob: BlobCapabilities = {
  colors: {
    devmode: 2,
    mono_num_colors: 2,
    color_num_colors: 256,
    mono_bits_pixel: 1,
    color_bits_pixel: 8,
    mono_planes: 1,
    color_planes: 1,
  },
  trays: [
    { index: 1, name: 'Upper', default: true },
    { index: 2, name: 'Lower', default: false },
  ],
  options: 1 | 2,
  papers: [
    {
      index: 9,
      xsize: 2100,
      ysize: 2970,
      name: 'A4',
      default: true,
      printable_area: {
        left_right_margins: 0,
        top_bottom_margins: 0,
        printable_width: 2100,
        printable_length: 2970,
      },
    },
  ],
  resolutions: [{ value: 600, default: true }],
};

/** The properties of the blob's printer: two trays ('Upper' the default), A4 and Custom, both orientations. */
const props = a4PrinterProperties({
  Collate: false,
  MediaSupported: ['A4', 'Custom'],
  MediaSupportedId: [9, 256],
  OrientationsSupported: ['Portrait', 'Landscape'],
  OrientationsSupportedId: [1, 2],
  Resolutions: ['Auto', '300', '600'],
  Trays: [
    { Index: 1, Name: 'Upper', Default: true },
    { Index: 2, Name: 'Lower', Default: false },
  ],
});

describe('mergeCustomCapabilities and the encoding', () => {
  it.each([
    ['no customs', {}, blob],
    ['a null custom is the default', { trays: null }, blob],
    ['a custom replaces whole', { options: 4 }, { ...blob, options: 4 }],
    ['an empty list is a value', { resolutions: [] }, { ...blob, resolutions: [] }],
  ])('%s', (_n, custom, expected) => {
    expect(mergeCustomCapabilities(blob, custom)).toEqual(expected);
  });

  it('encodes to options, count and base64 JSON, and decodes back (UTF-8 names too)', () => {
    const named = { ...blob, trays: [{ index: 1, name: 'Fach für Briefbögen', default: true }] };
    const encoded = encodeBlobCapabilities(named);
    expect(encoded).toMatchObject({ options: 3, count: 5 });
    expect(decodeBlobCapabilities(encoded.capabilities)).toEqual(named);
  });
});

describe('shape checks', () => {
  it.each([
    ['valid', blob, []],
    ['not an object', 5, ['x']],
    ['missing capability', { ...blob, papers: undefined }, ['x.papers']],
    [
      'two defaults',
      {
        ...blob,
        resolutions: [
          { value: 1, default: true },
          { value: 2, default: true },
        ],
      },
      ['x.resolutions'],
    ],
    [
      'duplicate paper name (any case)',
      { ...blob, papers: [blob.papers[0], { ...blob.papers[0], name: 'a4', default: false }] },
      ['x.papers[1].name'],
    ],
  ])('%s', (_n, value, fields) => {
    const clean = JSON.parse(JSON.stringify(value ?? null)) as unknown;
    expect(checkBlobCapabilities(clean, 'x').map((e) => e.field)).toEqual(fields);
  });
});

describe('simplified capabilities', () => {
  const base: SimplifiedCapabilities = simplifiedFromBlob(blob);

  it('come from options and trays', () => {
    expect(base).toEqual({
      color_supported: true,
      duplex_supported: true,
      trays: [
        { index: 1, name: null, original_name: 'Upper', enabled: true },
        { index: 2, name: null, original_name: 'Lower', enabled: true },
      ],
    });
  });

  it.each([
    ['rename', { trays: [{ index: 2, name: 'Letterhead' }] }, { trays: { '2': { name: 'Letterhead' } } }],
    ['disable', { trays: [{ index: 1, enabled: false }] }, { trays: { '1': { enabled: false } } }],
    ['color off', { color_supported: false }, { color_supported: false, trays: {} }],
    [
      'the original name clears',
      { trays: [{ index: 2, name: 'Lower' }] },
      { trays: { '2': { name: null } } },
    ],
  ])('PATCH %s', (_n, body, custom) => {
    expect(applySimplifiedPatch(base, {}, body)).toEqual(custom);
  });

  it.each([
    ['another original name', { trays: [{ index: 2, name: 'UPPER' }] }, 'trays[2].name'],
    ['original_name changed', { trays: [{ index: 2, original_name: 'x' }] }, 'trays[0].original_name'],
    ['unknown index', { trays: [{ index: 3 }] }, 'trays[0].index'],
    ['not an object', [], 'body'],
  ])('PATCH refuses %s', (_n, body, field) => {
    try {
      applySimplifiedPatch(base, {}, body);
      expect.unreachable('the patch should be refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationErrors);
      expect((error as ValidationErrors).errors.map((e) => e.field)).toContain(field);
    }
  });

  it('custom entries of trays that no longer exist are ignored', () => {
    const applied = applySimplifiedCustom(base, { trays: { '7': { name: 'Gone' }, '1': { name: 'Top' } } });
    expect(applied.trays.map((t) => t.name)).toEqual(['Top', null]);
  });

  it('validateTrayNames refuses a custom name equal to another original name', () => {
    expect(() =>
      validateTrayNames([
        { index: 1, name: 'Manual', original_name: 'Upper', enabled: true },
        { index: 2, name: 'Upper', original_name: 'Lower', enabled: true },
      ]),
    ).toThrow(ValidationError);
  });
});

describe('properties and blob capabilities', () => {
  it('blobFromProperties reads options, trays, papers and numeric resolutions', () => {
    const b = blobFromProperties(props);
    expect(b.options).toBe(1 | 2 | 8 | 16);
    expect(b.trays).toEqual(blob.trays);
    expect(b.papers).toEqual(blob.papers);
    expect(b.resolutions).toEqual([
      { value: 300, default: false },
      { value: 600, default: true },
    ]);
    expect(b.colors.devmode).toBe(2);
  });

  it('overlays only the named capabilities', () => {
    const custom = { ...blob, options: 0, papers: [{ ...blob.papers[0]!, index: 5, name: 'Legal' }] };
    const p = overlayBlobOnProperties(props, custom, ['papers']);
    expect(p.MediaSupported).toEqual(['Legal']);
    expect(p.Default).toMatchObject({ Paper: 'Legal', PaperId: 5 });
    expect(p.DuplexSupported).toBe(true);
    const o = overlayBlobOnProperties(props, custom, ['options']);
    expect(o).toMatchObject({ DuplexSupported: false, ColorSupported: false, Color: false });
    expect(props.MediaSupported).toEqual(['A4', 'Custom']);
  });

  it.each([
    ['nothing customized', {}, ['Upper', 'Lower'], 'Upper'],
    ['renamed', { trays: { '1': { name: 'Top' } } }, ['Top', 'Lower'], 'Top'],
    ['default disabled: moves', { trays: { '1': { enabled: false } } }, ['Lower'], 'Lower'],
  ])('applySimplifiedToProperties: %s', (_n, custom, names, defaultTray) => {
    const simplified = applySimplifiedCustom(simplifiedFromBlob(blob), custom);
    const p = applySimplifiedToProperties(props, simplified);
    expect(p.Trays.map((t) => t?.Name)).toEqual(names);
    expect(p.Default.Tray).toBe(defaultTray);
    expect(p.Trays.filter((t) => t?.Default)).toHaveLength(1);
  });

  it('every tray disabled shows Trays: [null]; color off shows monochrome', () => {
    const simplified = applySimplifiedCustom(simplifiedFromBlob(blob), {
      color_supported: false,
      trays: { '1': { enabled: false }, '2': { enabled: false } },
    });
    const p = applySimplifiedToProperties(props, simplified);
    expect(p.Trays).toEqual([null]);
    expect(p).toMatchObject({
      ColorSupported: false,
      Color: false,
      Default: { Color: 'Monochrome', Tray: '' },
    });
  });
});
