import { describe, expect, it } from 'vitest';
import {
  CUSTOM_PAPER_ID,
  customPaper,
  desktopPapers,
  namedCustomPapers,
  type PaperSize,
  paperById,
  paperByPwgName,
  paperBySize,
} from '../../../src/protocol/paper-sizes.js';

const KEYWORD = /^[a-z]+_[a-z0-9.-]+_(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(mm|in)$/;

/** The size a PWG self-describing keyword names, in tenths of a millimetre, short side first. */
function keywordSize(pwg: string): [number, number] | undefined {
  const match = KEYWORD.exec(pwg);
  if (!match) return undefined;
  const unit = match[3] === 'in' ? 254 : 10;
  return [Number(match[1]) * unit, Number(match[2]) * unit];
}

/** The sheet of an entry short side first (a rotated entry names its sheet in landscape). */
function portrait(paper: PaperSize): [number, number] {
  return paper.rotated ? [paper.length, paper.width] : [paper.width, paper.length];
}

describe('the paper tables', () => {
  const every = [...desktopPapers, ...namedCustomPapers];

  it.each(every.map((paper) => [paper.name, paper.pwg, paper]))(
    '%s: its PWG keyword %s names its own size (within rounding)',
    (_name, pwg, paper) => {
      const named = keywordSize(pwg as string);
      expect(named, `${pwg} is a self-describing keyword`).toBeDefined();
      const [width, length] = portrait(paper as PaperSize);
      expect(Math.abs(width - named![0])).toBeLessThanOrEqual(1);
      expect(Math.abs(length - named![1])).toBeLessThanOrEqual(1);
    },
  );

  it('flags exactly the entries wider than long as rotated', () => {
    for (const paper of every)
      expect({ name: paper.name, rotated: paper.width > paper.length }).toEqual({
        name: paper.name,
        rotated: paper.rotated === true,
      });
  });

  it('gives every size a display name of its own', () => {
    const names = every.map((paper) => paper.name);
    expect(names.filter((name) => name.trim() === '')).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives the named custom sizes id 256 and keywords no desktop id has', () => {
    const desktopKeywords = new Set(desktopPapers.map((paper) => paper.pwg));
    for (const paper of namedCustomPapers) {
      expect(paper.id).toBe(CUSTOM_PAPER_ID);
      expect(desktopKeywords.has(paper.pwg)).toBe(false);
      expect(paperByPwgName(paper.pwg)).toBe(paper);
    }
  });

  it('has a custom entry named Custom with the keyword custom and no size', () => {
    expect(paperById(CUSTOM_PAPER_ID)).toBe(customPaper);
    expect(customPaper).toEqual({ id: 256, name: 'Custom', pwg: 'custom', width: 0, length: 0 });
  });
});

describe('lookups', () => {
  it('finds a keyword written with blanks around it', () => {
    expect(paperByPwgName(' iso_a4_210x297mm\t')?.id).toBe(9);
  });
  it('matches no size when only the width is within the tolerance', () => {
    expect(paperBySize(2100, 2990)).toBeUndefined();
    expect(paperBySize(2120, 2970)).toBeUndefined();
  });
  it('picks the size closest in width and length together', () => {
    // Letter (2159 x 2794) is 4 away, Japanese Envelope Kaku #3 (2160 x 2770) 21, Quarto (2159 x 2751) 39.
    expect(paperBySize(2159, 2790, 50)?.name).toBe('Letter');
    expect(paperBySize(2159, 2755, 50)?.name).toBe('Quarto');
  });
});
