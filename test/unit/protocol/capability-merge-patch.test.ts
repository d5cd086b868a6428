import { describe, expect, it } from 'vitest';
import { ValidationErrors } from '../../../src/lib/errors.js';
import { BlobOption, type SimplifiedCapabilities } from '../../../src/protocol/blob-capabilities.js';
import {
  applySimplifiedPatch,
  type SimplifiedCustom,
  simplifiedFromBlob,
} from '../../../src/protocol/capability-merge.js';
import { blobCapabilities } from '../../support/blob-fixtures.js';

const trays = [
  { index: 1, name: 'Upper', default: true },
  { index: 2, name: 'Lower', default: false },
];
const color = simplifiedFromBlob(blobCapabilities({ options: BlobOption.color | BlobOption.duplex, trays }));
const mono = simplifiedFromBlob(blobCapabilities({ options: 0, trays }));

/** Every { field, rule } of the refusal; fails the test when the patch is accepted. */
function refusal(body: unknown, base: SimplifiedCapabilities = color, current: SimplifiedCustom = {}) {
  try {
    applySimplifiedPatch(base, current, body);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationErrors);
    return (error as ValidationErrors).errors.map(({ field, rule }) => ({ field, rule }));
  }
  return expect.unreachable('the patch should be refused');
}

describe('applySimplifiedPatch: the body', () => {
  it.each([
    ['null', null],
    ['a number', 5],
    ['a string', 'trays'],
    ['an array', []],
  ])('must be a JSON object, not %s', (_n, body) => {
    expect(refusal(body)).toEqual([{ field: 'body', rule: 'must be a JSON object' }]);
  });

  it('an unknown field is named with the allowed ones', () => {
    expect(refusal({ colour: false })).toEqual([
      { field: 'colour', rule: 'unknown field (allowed: color_supported, trays)' },
    ]);
  });

  it('an empty body changes nothing', () => {
    expect(applySimplifiedPatch(color, { color_supported: false }, {})).toEqual({
      color_supported: false,
      trays: {},
    });
  });

  it('the tray names are checked only when every field passed (one error per mistake)', () => {
    expect(refusal({ colour: false, trays: [{ index: 2, name: 'Upper' }] })).toEqual([
      { field: 'colour', rule: 'unknown field (allowed: color_supported, trays)' },
    ]);
  });

  it('a name clash after the fields passed is refused naming the tray', () => {
    expect(refusal({ trays: [{ index: 2, name: 'upper' }] })).toEqual([
      { field: 'trays[2].name', rule: 'must not duplicate the name of tray 1' },
    ]);
  });
});

describe('applySimplifiedPatch: color_supported may only be switched off, or back on', () => {
  it('must be a boolean', () => {
    expect(refusal({ color_supported: 'no' })).toEqual([
      { field: 'color_supported', rule: 'must be a boolean' },
    ]);
  });

  it('true is refused on a printer without color', () => {
    expect(refusal({ color_supported: true }, mono)).toEqual([
      { field: 'color_supported', rule: 'the printer has no color: it can only be false' },
    ]);
  });

  it('false is accepted on a printer without color', () => {
    expect(applySimplifiedPatch(mono, {}, { color_supported: false })).toEqual({
      color_supported: false,
      trays: {},
    });
  });

  it('true on a color printer removes the switch-off', () => {
    expect(applySimplifiedPatch(color, { color_supported: false }, { color_supported: true })).toEqual({
      trays: {},
    });
  });
});

describe('applySimplifiedPatch: duplex_supported may be echoed, never changed', () => {
  it('the printer own value is accepted and stores nothing', () => {
    expect(applySimplifiedPatch(color, {}, { duplex_supported: true })).toEqual({ trays: {} });
    expect(applySimplifiedPatch(mono, {}, { duplex_supported: false })).toEqual({ trays: {} });
  });

  it.each([
    ['another value', color, false, 'cannot be changed (the printer reports true)'],
    ['true where the printer has none', mono, true, 'cannot be changed (the printer reports false)'],
    ['a non-boolean', color, 'true', 'cannot be changed (the printer reports true)'],
  ])('%s is refused with what the printer reports', (_n, base, value, rule) => {
    expect(refusal({ duplex_supported: value }, base)).toEqual([{ field: 'duplex_supported', rule }]);
  });
});

describe('applySimplifiedPatch: trays', () => {
  it('must be an array', () => {
    expect(refusal({ trays: { index: 1 } })).toEqual([{ field: 'trays', rule: 'must be an array' }]);
  });

  it('each element must be an object', () => {
    expect(refusal({ trays: [{ index: 1 }, 'Upper'] })).toEqual([
      { field: 'trays[1]', rule: 'must be an object' },
    ]);
  });

  it('an unknown index is refused with the known ones', () => {
    expect(refusal({ trays: [{ index: 3 }] })).toEqual([
      { field: 'trays[0].index', rule: 'must be the index of a tray (1, 2)' },
    ]);
  });

  it('on a printer without trays the known indexes are none', () => {
    const bare = simplifiedFromBlob(blobCapabilities({ trays: [] }));
    expect(refusal({ trays: [{ index: 1 }] }, bare)).toEqual([
      { field: 'trays[0].index', rule: 'must be the index of a tray (none)' },
    ]);
  });

  it('a tray left out keeps its earlier customization', () => {
    const current = { trays: { '1': { name: 'Top' } } };
    expect(applySimplifiedPatch(color, current, { trays: [{ index: 2, enabled: false }] })).toEqual({
      trays: { '1': { name: 'Top' }, '2': { enabled: false } },
    });
  });

  it('a field left out of a tray keeps its earlier value', () => {
    const current = { trays: { '1': { name: 'Top' } } };
    expect(applySimplifiedPatch(color, current, { trays: [{ index: 1, enabled: false }] })).toEqual({
      trays: { '1': { name: 'Top', enabled: false } },
    });
  });

  it('an unknown tray field is named with the allowed ones', () => {
    expect(refusal({ trays: [{ index: 1, default: true }] })).toEqual([
      { field: 'trays[0].default', rule: 'unknown field (allowed: index, name, enabled)' },
    ]);
  });
});

describe('applySimplifiedPatch: a tray original_name may be echoed, never changed', () => {
  it('echoed unchanged it is accepted and stores nothing', () => {
    expect(applySimplifiedPatch(color, {}, { trays: [{ index: 2, original_name: 'Lower' }] })).toEqual({
      trays: { '2': {} },
    });
  });

  it('changed it is refused', () => {
    expect(refusal({ trays: [{ index: 2, original_name: 'Bottom' }] })).toEqual([
      { field: 'trays[0].original_name', rule: 'cannot be changed' },
    ]);
  });
});

describe('applySimplifiedPatch: a tray name', () => {
  const named = { trays: { '1': { name: 'Top' } } };
  const NAME_RULE = 'must be a non-empty string of at most 255 characters, or null';

  it.each([
    ['null', null],
    ['the empty string', ''],
    ['the original name', 'Upper'],
  ])('%s clears the custom name', (_n, name) => {
    expect(applySimplifiedPatch(color, named, { trays: [{ index: 1, name }] })).toEqual({
      trays: { '1': { name: null } },
    });
  });

  it('a new name is stored; 255 characters are allowed', () => {
    const long = 'x'.repeat(255);
    expect(applySimplifiedPatch(color, named, { trays: [{ index: 1, name: long }] })).toEqual({
      trays: { '1': { name: long } },
    });
  });

  it('its own original name in another case is stored (it is a custom name)', () => {
    expect(applySimplifiedPatch(color, {}, { trays: [{ index: 1, name: 'UPPER' }] })).toEqual({
      trays: { '1': { name: 'UPPER' } },
    });
  });

  it.each([
    ['blanks only', ' \t '],
    ['256 characters', 'x'.repeat(256)],
    ['a number', 5],
    ['a boolean', true],
  ])('%s is refused', (_n, name) => {
    expect(refusal({ trays: [{ index: 2, name }] })).toEqual([{ field: 'trays[0].name', rule: NAME_RULE }]);
  });
});

describe('applySimplifiedPatch: a tray enabled flag', () => {
  it('false and true are stored', () => {
    const body = {
      trays: [
        { index: 1, enabled: false },
        { index: 2, enabled: true },
      ],
    };
    expect(applySimplifiedPatch(color, {}, body)).toEqual({
      trays: { '1': { enabled: false }, '2': { enabled: true } },
    });
  });

  it('must be a boolean', () => {
    expect(refusal({ trays: [{ index: 1, enabled: 'no' }] })).toEqual([
      { field: 'trays[0].enabled', rule: 'must be a boolean' },
    ]);
  });
});
