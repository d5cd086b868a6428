import { describe, expect, it } from 'vitest';
import {
  BLOB_CAPABILITY_NAMES,
  type BlobCapabilityName,
  checkBlobCapabilities,
  checkBlobCapability,
  isBlobCapabilityName,
} from '../../../src/protocol/blob-capabilities.js';
import { blobCapabilities, COLOR_COLORS, MONO_COLORS } from '../../support/blob-fixtures.js';

/** Every { field, rule } checkBlobCapability finds in one capability value, below `custom`. */
function problems(name: BlobCapabilityName, value: unknown) {
  return checkBlobCapability(name, value, 'custom').map(({ field, rule }) => ({ field, rule }));
}

const INTEGER = (min: number, max = 2147483647) => `must be an integer from ${min} to ${max}`;
const TEXT = 'must be a non-empty string of at most 255 characters';
const tray = { index: 1, name: 'Tray 1', default: true };

describe('isBlobCapabilityName: the five names, exactly as spelled', () => {
  it.each(BLOB_CAPABILITY_NAMES)('%s is one', (name) => {
    expect(isBlobCapabilityName(name)).toBe(true);
  });

  it.each(['color', 'Trays', 'paper', '', 'toString'])('%j is not', (name) => {
    expect(isBlobCapabilityName(name)).toBe(false);
  });
});

describe('checkBlobCapabilities: the connector upload of all five', () => {
  it('a full valid set has no problem', () => {
    expect(checkBlobCapabilities(blobCapabilities(), 'defaults')).toEqual([]);
  });

  it.each([null, 5, 'x', [blobCapabilities()]])('%j is not an object', (value) => {
    expect(checkBlobCapabilities(value, 'defaults').map(({ field, rule }) => ({ field, rule }))).toEqual([
      { field: 'defaults', rule: 'must be an object with the five capabilities' },
    ]);
  });

  it('a missing capability is required, an extra one unknown, and each present one is checked', () => {
    const { papers: _papers, ...rest } = blobCapabilities();
    const value = { ...rest, options: -1, fonts: [] };
    expect(checkBlobCapabilities(value, 'defaults').map(({ field, rule }) => ({ field, rule }))).toEqual([
      { field: 'defaults.fonts', rule: 'unknown field' },
      { field: 'defaults.papers', rule: 'required' },
      { field: 'defaults.options', rule: INTEGER(0) },
    ]);
  });
});

describe('options: an integer from 0 to 2147483647', () => {
  it.each([0, 31, 2147483647])('%d passes', (value) => {
    expect(problems('options', value)).toEqual([]);
  });

  it.each([-1, 2147483648, 1.5, '3', null, Number.NaN])('%j is refused', (value) => {
    expect(problems('options', value)).toEqual([{ field: 'custom', rule: INTEGER(0) }]);
  });
});

describe('colors: seven integers, devmode 1 (monochrome) or 2 (color)', () => {
  it.each([
    ['monochrome', MONO_COLORS],
    ['color', COLOR_COLORS],
  ])('the colors of a %s printer pass', (_n, colors) => {
    expect(problems('colors', colors)).toEqual([]);
  });

  it.each([null, [MONO_COLORS], 2])('%j is not an object', (value) => {
    expect(problems('colors', value)).toEqual([{ field: 'custom', rule: 'must be an object' }]);
  });

  it.each([0, 3, -1, '2', 1.5])('devmode %j is refused by its own rule only', (devmode) => {
    expect(problems('colors', { ...MONO_COLORS, devmode })).toEqual([
      { field: 'custom.devmode', rule: 'must be 1 (monochrome) or 2 (color)' },
    ]);
  });

  it.each([
    'mono_num_colors',
    'color_num_colors',
    'mono_bits_pixel',
    'color_bits_pixel',
    'mono_planes',
    'color_planes',
  ])('%s must be a non-negative integer (0 passes)', (field) => {
    expect(problems('colors', { ...MONO_COLORS, [field]: 0 })).toEqual([]);
    expect(problems('colors', { ...MONO_COLORS, [field]: -1 })).toEqual([
      { field: `custom.${field}`, rule: INTEGER(0) },
    ]);
  });

  it('a missing field is only required; an extra one is unknown', () => {
    const { devmode: _d, color_planes: _c, ...rest } = COLOR_COLORS;
    expect(problems('colors', { ...rest, gamma: 2 })).toEqual([
      { field: 'custom.gamma', rule: 'unknown field' },
      { field: 'custom.devmode', rule: 'required' },
      { field: 'custom.color_planes', rule: 'required' },
    ]);
  });
});

describe('trays: index 0 to 65535 (unique), a name, a default flag', () => {
  it.each([
    ['one tray', [tray]],
    ['no tray', []],
    [
      'index 0 and 65535, no default',
      [
        { ...tray, index: 0, default: false },
        { index: 65535, name: 'x', default: false },
      ],
    ],
    ['a name of 255 characters', [{ ...tray, name: 'n'.repeat(255) }]],
  ])('%s passes', (_n, trays) => {
    expect(problems('trays', trays)).toEqual([]);
  });

  it.each([null, { 0: tray }, 'Tray 1'])('%j is not an array', (value) => {
    expect(problems('trays', value)).toEqual([{ field: 'custom', rule: 'must be an array' }]);
  });

  it.each([null, 'Tray 1', [tray]])('an element %j is not an object', (item) => {
    expect(problems('trays', [tray, item])).toEqual([{ field: 'custom[1]', rule: 'must be an object' }]);
  });

  it.each([-1, 65536, 1.5, '1'])('index %j is refused', (index) => {
    expect(problems('trays', [{ ...tray, index }])).toEqual([
      { field: 'custom[0].index', rule: INTEGER(0, 65535) },
    ]);
  });

  it.each(['', ' \t ', 'n'.repeat(256), 7, null])('name %j is refused', (name) => {
    expect(problems('trays', [{ ...tray, name }])).toEqual([{ field: 'custom[0].name', rule: TEXT }]);
  });

  it.each(['yes', 1, null])('default %j is refused', (value) => {
    expect(problems('trays', [{ ...tray, default: value }])).toEqual([
      { field: 'custom[0].default', rule: 'must be a boolean' },
    ]);
  });

  it('an index used twice is refused on the second; two defaults on the list', () => {
    expect(problems('trays', [tray, { ...tray, name: 'Tray 2' }])).toEqual([
      { field: 'custom[1].index', rule: 'must be unique in custom' },
      { field: 'custom', rule: 'at most one element may be the default' },
    ]);
  });

  it('a missing field is only required (one error, not also its own rule); an extra one is unknown', () => {
    expect(problems('trays', [{ index: 1, default: false, media: 'A4' }])).toEqual([
      { field: 'custom[0].media', rule: 'unknown field' },
      { field: 'custom[0].name', rule: 'required' },
    ]);
    expect(problems('trays', [{}, {}])).toEqual([
      { field: 'custom[0].index', rule: 'required' },
      { field: 'custom[0].name', rule: 'required' },
      { field: 'custom[0].default', rule: 'required' },
      { field: 'custom[1].index', rule: 'required' },
      { field: 'custom[1].name', rule: 'required' },
      { field: 'custom[1].default', rule: 'required' },
    ]);
    expect(problems('resolutions', [{ default: true }])).toEqual([
      { field: 'custom[0].value', rule: 'required' },
    ]);
  });
});

describe('resolutions: value 1 to 100000 dpi (unique), a default flag', () => {
  it.each([1, 100000])('%d dpi passes', (value) => {
    expect(problems('resolutions', [{ value, default: true }])).toEqual([]);
  });

  it.each([0, 100001, 600.5, '600'])('%j is refused', (value) => {
    expect(problems('resolutions', [{ value, default: true }])).toEqual([
      { field: 'custom[0].value', rule: INTEGER(1, 100000) },
    ]);
  });

  it('default must be a boolean; a value given twice is refused on the second', () => {
    expect(
      problems('resolutions', [
        { value: 600, default: 'no' },
        { value: 600, default: false },
      ]),
    ).toEqual([
      { field: 'custom[0].default', rule: 'must be a boolean' },
      { field: 'custom[1].value', rule: 'must be unique in custom' },
    ]);
  });
});
