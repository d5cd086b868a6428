import { describe, expect, it } from 'vitest';
import { type BlobPaper, checkBlobCapability } from '../../../src/protocol/blob-capabilities.js';

/** Every { field, rule } the papers check finds, below `custom`. */
function problems(value: unknown) {
  return checkBlobCapability('papers', value, 'custom').map(({ field, rule }) => ({ field, rule }));
}

const INTEGER = (min: number, max = 2147483647) => `must be an integer from ${min} to ${max}`;

const a4: BlobPaper = {
  index: 9,
  xsize: 2100,
  ysize: 2970,
  name: 'A4',
  default: true,
  printable_area: {
    left_right_margins: 100,
    top_bottom_margins: 200,
    printable_width: 2000,
    printable_length: 2770,
  },
};

/** A4 with `area` laid over its printable area. */
function withArea(area: Record<string, unknown>): Record<string, unknown> {
  return { ...a4, printable_area: { ...a4.printable_area, ...area } };
}

describe('papers: index 1 to 65535, sizes from 1, a unique name, a default flag', () => {
  it.each([
    ['A4', [a4]],
    [
      'index 1 and 65535, sizes of 1',
      [
        { ...a4, index: 1 },
        {
          ...withArea({
            left_right_margins: 0,
            top_bottom_margins: 0,
            printable_width: 1,
            printable_length: 1,
          }),
          index: 65535,
          xsize: 1,
          ysize: 1,
          name: 'Tiny',
          default: false,
        },
      ],
    ],
  ])('%s passes', (_n, papers) => {
    expect(problems(papers)).toEqual([]);
  });

  it.each([
    ['index', 0, INTEGER(1, 65535)],
    ['index', 65536, INTEGER(1, 65535)],
    ['name', ' ', 'must be a non-empty string of at most 255 characters'],
    ['default', 'true', 'must be a boolean'],
  ])('%s %j is refused', (field, value, rule) => {
    expect(problems([{ ...a4, [field]: value }])).toEqual([{ field: `custom[0].${field}`, rule }]);
  });

  it('sizes of 0 are refused (and the printable area no longer fits them)', () => {
    expect(problems([{ ...a4, xsize: 0, ysize: 0 }])).toEqual([
      { field: 'custom[0].xsize', rule: INTEGER(1) },
      { field: 'custom[0].ysize', rule: INTEGER(1) },
      {
        field: 'custom[0].printable_area.printable_width',
        rule: 'plus left_right_margins must not exceed xsize',
      },
      {
        field: 'custom[0].printable_area.printable_length',
        rule: 'plus top_bottom_margins must not exceed ysize',
      },
    ]);
  });

  it('a missing size or name is only required, once, and no other rule blames it', () => {
    const { xsize: _x, name: _n, ...rest } = a4;
    expect(problems([rest, { ...rest, index: 10, default: false }])).toEqual([
      { field: 'custom[0].xsize', rule: 'required' },
      { field: 'custom[0].name', rule: 'required' },
      { field: 'custom[1].xsize', rule: 'required' },
      { field: 'custom[1].name', rule: 'required' },
    ]);
  });

  it('names are unique by their lower-case form', () => {
    expect(problems([a4, { ...a4, name: 'a4', default: false }])).toEqual([
      { field: 'custom[1].name', rule: 'must be unique in custom' },
    ]);
    // Straße lower-cases to itself and STRASSE to strasse: two names (only upper-casing would merge them).
    expect(
      problems([
        { ...a4, name: 'Straße' },
        { ...a4, name: 'STRASSE', default: false },
      ]),
    ).toEqual([]);
  });

  it('the same size under two names passes', () => {
    expect(problems([a4, { ...a4, name: 'A4 Transverse', default: false }])).toEqual([]);
  });
});

describe('papers: the printable area', () => {
  it('is required, and its absence is the only problem', () => {
    const { printable_area: _area, ...rest } = a4;
    expect(problems([rest])).toEqual([{ field: 'custom[0].printable_area', rule: 'required' }]);
  });

  it.each([null, [], 'full'])('%j is not an object', (area) => {
    expect(problems([{ ...a4, printable_area: area }])).toEqual([
      { field: 'custom[0].printable_area', rule: 'must be an object' },
    ]);
  });

  it.each(['left_right_margins', 'top_bottom_margins', 'printable_width', 'printable_length'])(
    '%s must be a non-negative integer (0 passes)',
    (field) => {
      expect(problems([withArea({ [field]: 0 })])).toEqual([]);
      expect(problems([withArea({ [field]: -1 })])).toEqual([
        { field: `custom[0].printable_area.${field}`, rule: INTEGER(0) },
      ]);
    },
  );

  it('a missing field is only required; an extra one is unknown', () => {
    const { printable_length: _l, ...area } = a4.printable_area;
    expect(problems([{ ...a4, printable_area: { ...area, gutter: 0 } }])).toEqual([
      { field: 'custom[0].printable_area.gutter', rule: 'unknown field' },
      { field: 'custom[0].printable_area.printable_length', rule: 'required' },
    ]);
  });

  it('the width plus its margins may fill xsize exactly, not exceed it', () => {
    expect(problems([withArea({ printable_width: 2000 })])).toEqual([]);
    expect(problems([withArea({ printable_width: 2001 })])).toEqual([
      {
        field: 'custom[0].printable_area.printable_width',
        rule: 'plus left_right_margins must not exceed xsize',
      },
    ]);
  });

  it('the length plus its margins may fill ysize exactly, not exceed it', () => {
    expect(problems([withArea({ printable_length: 2770 })])).toEqual([]);
    expect(problems([withArea({ top_bottom_margins: 201 })])).toEqual([
      {
        field: 'custom[0].printable_area.printable_length',
        rule: 'plus top_bottom_margins must not exceed ysize',
      },
    ]);
  });

  it.each([
    ['xsize', { xsize: 'wide' }, 'custom[0].xsize', INTEGER(1)],
    ['ysize', { ysize: 'long' }, 'custom[0].ysize', INTEGER(1)],
    [
      'left_right_margins',
      withArea({ left_right_margins: 'x' }),
      'custom[0].printable_area.left_right_margins',
      INTEGER(0),
    ],
    [
      'printable_width',
      withArea({ printable_width: 'x' }),
      'custom[0].printable_area.printable_width',
      INTEGER(0),
    ],
    [
      'top_bottom_margins',
      withArea({ top_bottom_margins: 'x' }),
      'custom[0].printable_area.top_bottom_margins',
      INTEGER(0),
    ],
    [
      'printable_length',
      withArea({ printable_length: 'x' }),
      'custom[0].printable_area.printable_length',
      INTEGER(0),
    ],
  ])('a non-number %s fails its own rule only, not the fit', (_n, changes, field, rule) => {
    expect(problems([{ ...a4, ...changes }])).toEqual([{ field, rule }]);
  });
});
