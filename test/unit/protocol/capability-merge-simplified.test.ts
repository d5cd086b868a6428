import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/lib/errors.js';
import { BlobOption, type SimplifiedTray } from '../../../src/protocol/blob-capabilities.js';
import {
  applySimplifiedCustom,
  applySimplifiedPatch,
  simplifiedFromBlob,
  validateTrayNames,
} from '../../../src/protocol/capability-merge.js';
import { blobCapabilities } from '../../support/blob-fixtures.js';

function tray(index: number, original_name: string, name: string | null = null): SimplifiedTray {
  return { index, name, original_name, enabled: true };
}

/** The ValidationError validateTrayNames throws, or undefined when the names pass. */
function nameError(trays: SimplifiedTray[]): ValidationError | undefined {
  try {
    validateTrayNames(trays);
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

describe('validateTrayNames (rule 2: custom tray names must not duplicate other tray names)', () => {
  it('two trays the printer names alike, neither renamed, pass: only custom names are checked', () => {
    expect(nameError([tray(1, 'Auto'), tray(2, 'Auto'), tray(3, 'Manual')])).toBeUndefined();
  });

  it('a custom name equal to its own original name in another case passes', () => {
    expect(nameError([tray(1, 'Upper', 'UPPER'), tray(2, 'Lower')])).toBeUndefined();
  });

  it('a custom name equal to a later tray original name is refused on the renamed tray', () => {
    const error = nameError([tray(1, 'Upper', 'lower'), tray(2, 'Lower')]);
    expect(error).toMatchObject({ field: 'trays[1].name', rule: 'must not duplicate the name of tray 2' });
  });

  it('a custom name equal to an earlier tray original name is refused on the renamed tray', () => {
    const error = nameError([tray(4, 'Upper'), tray(7, 'Lower', 'Upper')]);
    expect(error).toMatchObject({ field: 'trays[7].name', rule: 'must not duplicate the name of tray 4' });
  });

  it('a custom name equal to the original name of a renamed tray is still refused', () => {
    const error = nameError([tray(1, 'Upper', 'Top'), tray(2, 'Lower', 'upper')]);
    expect(error).toMatchObject({ field: 'trays[2].name', rule: 'must not duplicate the name of tray 1' });
  });

  it('two equal custom names (any case) are refused on the second', () => {
    const error = nameError([tray(1, 'Upper', 'Letterhead'), tray(2, 'Lower', 'LETTERHEAD')]);
    expect(error).toMatchObject({ field: 'trays[2].name', rule: 'must not duplicate the name of tray 1' });
  });

  it('distinct custom and original names pass', () => {
    expect(
      nameError([tray(1, 'Upper', 'Top'), tray(2, 'Lower', 'Bottom'), tray(3, 'Manual')]),
    ).toBeUndefined();
  });
});

describe('a PATCH on a printer whose own tray names repeat', () => {
  const base = simplifiedFromBlob(
    blobCapabilities({
      options: BlobOption.color,
      trays: [
        { index: 1, name: 'Auto', default: true },
        { index: 2, name: 'Auto', default: false },
      ],
    }),
  );

  it('is accepted when it renames nothing (the printer own names are not custom names)', () => {
    expect(applySimplifiedPatch(base, {}, { color_supported: false })).toEqual({
      color_supported: false,
      trays: {},
    });
  });

  it('may rename one of the two to tell them apart', () => {
    const next = applySimplifiedPatch(base, {}, { trays: [{ index: 2, name: 'Auto 2' }] });
    expect(applySimplifiedCustom(base, next).trays.map((t) => t.name ?? t.original_name)).toEqual([
      'Auto',
      'Auto 2',
    ]);
  });
});

describe('simplifiedFromBlob: color and duplex from their own option bits', () => {
  it.each([
    ['no bit: neither', 0, false, false],
    ['the color bit alone', BlobOption.color, true, false],
    ['the duplex bit alone', BlobOption.duplex, false, true],
    [
      'the other bits give neither',
      BlobOption.collate | BlobOption.customPaper | BlobOption.landscape,
      false,
      false,
    ],
  ])('%s', (_n, options, color, duplex) => {
    const simplified = simplifiedFromBlob(blobCapabilities({ options }));
    expect(simplified).toMatchObject({ color_supported: color, duplex_supported: duplex });
  });
});

describe('applySimplifiedCustom: color stays as the printer offers unless switched off', () => {
  const color = simplifiedFromBlob(blobCapabilities({ options: BlobOption.color | BlobOption.duplex }));

  it('without customs the view is the printer own', () => {
    expect(applySimplifiedCustom(color, {})).toEqual(color);
  });

  it('color_supported false switches color off; duplex is never customized', () => {
    expect(applySimplifiedCustom(color, { color_supported: false })).toMatchObject({
      color_supported: false,
      duplex_supported: true,
    });
  });

  it('a printer without color stays without, whatever the custom says', () => {
    const mono = simplifiedFromBlob(blobCapabilities({ options: 0 }));
    expect(applySimplifiedCustom(mono, { color_supported: true }).color_supported).toBe(false);
  });

  it('a tray custom sets its name and enabled flag; a missing one keeps the view', () => {
    const trays = applySimplifiedCustom(color, { trays: { '1': { enabled: false } } }).trays;
    expect(trays).toEqual([{ index: 1, name: null, original_name: 'Tray 1', enabled: false }]);
  });
});
