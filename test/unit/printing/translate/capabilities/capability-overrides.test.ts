import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../../src/lib/errors.js';
import {
  type BlobCapabilities,
  BlobOption,
  ippToBlobCapabilities,
  ippToSimplifiedCapabilities,
  type SimplifiedCapabilities,
} from '../../../../../src/printing/translate/capabilities/blob-capabilities.js';
import {
  applyCapabilityOverrides,
  mergeCustomCapabilities,
  validateTrayNames,
} from '../../../../../src/printing/translate/capabilities/capability-overrides.js';
import type { PrintTicket } from '../../../../../src/protocol/print-ticket.js';
import { printerFixture } from '../../../../support/fixture-files.js';

describe('ippToBlobCapabilities', () => {
  const eve = ippToBlobCapabilities(printerFixture('ippeveprinter-test-printer'));

  it('colors describe a monochrome printer', () => {
    expect(eve.colors).toEqual({
      devmode: 1,
      mono_num_colors: 2,
      color_num_colors: 2,
      mono_bits_pixel: 1,
      color_bits_pixel: 1,
      mono_planes: 1,
      color_planes: 1,
    });
  });

  it('trays, options and resolutions', () => {
    expect(eve.trays).toEqual([
      { index: 1, name: 'Automatic', default: false },
      { index: 2, name: 'Main tray', default: true },
      { index: 3, name: 'Manual feed', default: false },
      { index: 4, name: 'Bypass tray', default: false },
    ]);
    expect(eve.options).toBe(BlobOption.collate | BlobOption.landscape);
    expect(eve.resolutions).toEqual([{ value: 600, default: true }]);
  });

  it('papers carry printable areas from media-col-database margins (tenths of a mm)', () => {
    expect(eve.papers.map((p) => [p.index, p.name, p.xsize, p.ysize, p.default, p.printable_area])).toEqual([
      [
        1,
        'Letter',
        2159,
        2794,
        true,
        { left_right_margins: 127, top_bottom_margins: 127, printable_width: 2032, printable_length: 2667 },
      ],
      [
        5,
        'Legal',
        2159,
        3556,
        false,
        { left_right_margins: 127, top_bottom_margins: 127, printable_width: 2032, printable_length: 3429 },
      ],
      [
        9,
        'A4',
        2100,
        2970,
        false,
        { left_right_margins: 68, top_bottom_margins: 127, printable_width: 2032, printable_length: 2843 },
      ],
      [
        20,
        'Envelope #10',
        1048,
        2413,
        false,
        { left_right_margins: 127, top_bottom_margins: 127, printable_width: 921, printable_length: 2286 },
      ],
      [
        27,
        'Envelope DL',
        1100,
        2200,
        false,
        { left_right_margins: 127, top_bottom_margins: 127, printable_width: 973, printable_length: 2073 },
      ],
    ]);
  });

  it('without media-col-database the margin-supported maxima are used', () => {
    const epson = ippToBlobCapabilities(printerFixture('epson-wf-2630'));
    expect(epson.papers[0]).toEqual({
      index: 9,
      xsize: 2100,
      ysize: 2970,
      name: 'A4',
      default: true,
      printable_area: {
        left_right_margins: 60,
        top_bottom_margins: 60,
        printable_width: 2040,
        printable_length: 2910,
      },
    });
    expect(epson.options).toBe(BlobOption.color | BlobOption.customPaper);
    expect(epson.colors.devmode).toBe(2);
    expect(epson.resolutions).toEqual([
      { value: 360, default: true },
      { value: 1440, default: false },
    ]);
  });
});

describe('ippToSimplifiedCapabilities', () => {
  it.each([
    ['ippeveprinter-test-printer', false, false, ['Automatic', 'Main tray', 'Manual feed', 'Bypass tray']],
    ['fujixerox-docuprint-cm305', true, true, ['Automatic', 'Tray 1', 'Tray 2', 'Bypass tray']],
    ['epson-wf-2630', true, false, ['Main tray']],
  ])('%s', (name, color, duplex, trays) => {
    const caps = ippToSimplifiedCapabilities(printerFixture(name));
    expect(caps.color_supported).toBe(color);
    expect(caps.duplex_supported).toBe(duplex);
    expect(caps.trays).toEqual(
      trays.map((t, i) => ({ index: i + 1, name: null, original_name: t, enabled: true })),
    );
  });
});

const blob: BlobCapabilities = ippToBlobCapabilities(printerFixture('fujixerox-docuprint-cm305'));

describe('mergeCustomCapabilities', () => {
  it.each([
    ['no customs keep every default', {}, blob],
    ['null custom keeps the default', { trays: null }, blob],
    [
      'a custom tray list replaces the default list whole',
      { trays: [{ index: 2, name: 'Letterhead', default: true }] },
      { ...blob, trays: [{ index: 2, name: 'Letterhead', default: true }] },
    ],
    ['a custom options value replaces the default', { options: 0 }, { ...blob, options: 0 }],
    [
      'custom resolutions replace the defaults',
      { resolutions: [{ value: 300, default: true }] },
      { ...blob, resolutions: [{ value: 300, default: true }] },
    ],
  ])('%s', (_label, custom, expected) => {
    expect(mergeCustomCapabilities(blob, custom)).toEqual(expected);
  });
});

describe('validateTrayNames', () => {
  it('accepts distinct names', () => {
    expect(() =>
      validateTrayNames([
        { index: 1, name: 'Letterhead', original_name: 'Tray 1', enabled: true },
        { index: 2, name: null, original_name: 'Tray 2', enabled: true },
      ]),
    ).not.toThrow();
  });

  it('refuses a custom name equal to another tray name, naming the tray', () => {
    expect(() =>
      validateTrayNames([
        { index: 1, name: 'Tray 2', original_name: 'Tray 1', enabled: true },
        { index: 2, name: null, original_name: 'Tray 2', enabled: true },
      ]),
    ).toThrow(ValidationError);
  });
});

const simplified: SimplifiedCapabilities = {
  color_supported: true,
  duplex_supported: true,
  trays: [
    { index: 1, name: null, original_name: 'Automatic', enabled: true },
    { index: 2, name: 'Letterhead', original_name: 'Tray 1', enabled: true },
    { index: 3, name: null, original_name: 'Tray 2', enabled: false },
    { index: 4, name: null, original_name: 'Bypass tray', enabled: true },
  ],
};
const caps = { simplified, blob };

describe('applyCapabilityOverrides', () => {
  it.each<[string, PrintTicket, PrintTicket, number]>([
    ['a plain ticket is unchanged', { copies: 2 }, { copies: 2 }, 0],
    [
      'a custom tray name gets the original tray',
      { copies: 1, tray: { name: 'letterhead' } },
      { copies: 1, tray: { index: 2, name: 'Tray 1' } },
      0,
    ],
    [
      'an original tray name still works',
      { copies: 1, tray: { name: 'Bypass tray' } },
      { copies: 1, tray: { index: 4, name: 'Bypass tray' } },
      0,
    ],
    [
      'a disabled tray falls back to the default tray with a warning',
      { copies: 1, tray: { index: 3 } },
      { copies: 1, tray: { index: 1, name: 'Automatic' } },
      1,
    ],
    [
      'an unknown tray is dropped with a warning',
      { copies: 1, tray: { name: 'Drawer 9' } },
      { copies: 1 },
      1,
    ],
    [
      'an offered paper keeps its id and gets its name',
      { copies: 1, paper: { id: 9 } },
      { copies: 1, paper: { id: 9, name: 'A4' } },
      0,
    ],
    [
      'a paper not offered falls back to the default paper',
      { copies: 1, paper: { id: 8 } },
      { copies: 1, paper: { id: 9, name: 'A4' } },
      1,
    ],
    [
      'a custom size without custom-size support falls back',
      { copies: 1, paper: { id: 256, width: 1000, length: 1500 } },
      { copies: 1, paper: { id: 9, name: 'A4' } },
      1,
    ],
    ['an unsupported resolution is dropped', { copies: 1, resolution: { dpi: 1200 } }, { copies: 1 }, 1],
  ])('%s', (_label, ticket, expected, warnings) => {
    const result = applyCapabilityOverrides(ticket, caps);
    expect(result.ticket).toEqual(expected);
    expect(result.warnings).toHaveLength(warnings);
  });

  it('color and duplex switched off by the admin are turned off with warnings', () => {
    const locked = { blob, simplified: { ...simplified, color_supported: false, duplex_supported: false } };
    const result = applyCapabilityOverrides({ copies: 1, color: true, duplex: 'long-edge' }, locked);
    expect(result.ticket).toEqual({ copies: 1, color: false, duplex: 'simplex' });
    expect(result.warnings.map((w) => w.split(':')[0])).toEqual(['color', 'duplex']);
  });

  it('a custom size is kept when the (custom) options allow custom sizes', () => {
    const merged = mergeCustomCapabilities(blob, { options: blob.options | BlobOption.customPaper });
    const ticket: PrintTicket = { copies: 1, paper: { id: 256, width: 1000, length: 1500 } };
    expect(applyCapabilityOverrides(ticket, { simplified, blob: merged }).ticket).toEqual(ticket);
  });

  it('overridden papers (custom list) decide what is offered', () => {
    const merged = mergeCustomCapabilities(blob, { papers: blob.papers.filter((p) => p.index === 1) });
    const result = applyCapabilityOverrides({ copies: 1, paper: { id: 9 } }, { simplified, blob: merged });
    expect(result.ticket.paper).toEqual({ id: 1, name: 'Letter' });
    expect(result.warnings[0]).toMatch(/^paper: id 9/);
  });

  it('does not change the input ticket', () => {
    const ticket: PrintTicket = { copies: 1, tray: { index: 3 } };
    applyCapabilityOverrides(ticket, caps);
    expect(ticket).toEqual({ copies: 1, tray: { index: 3 } });
  });
});
