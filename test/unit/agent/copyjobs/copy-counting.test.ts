import { describe, expect, it } from 'vitest';
import { accumulate, copyFields } from '../../../../src/agent/copyjobs/copy-counting.js';

describe('accumulate', () => {
  it('adds growth of counters both readings have and ignores a counter that went backwards', () => {
    const a = accumulate(
      { impressions: 0 },
      { impressions: 100, color: 10 },
      { impressions: 104, color: 11 },
    );
    expect(a).toEqual({ impressions: 4, color: 1 });
    expect(accumulate(a, { impressions: 104, color: 11 }, { impressions: 3, color: 12, sheets: 7 })).toEqual({
      impressions: 4,
      color: 2,
    });
  });
});

describe('copyFields', () => {
  const defaults = { paperId: 9 };
  it('records nothing when every page was a released job', () => {
    expect(copyFields({ impressions: 3 }, { pages: 3 }, { impressions: 10 }, defaults)).toBeUndefined();
  });

  it('gives colour, sheets and duplex when the device counts them and nothing was released', () => {
    expect(
      copyFields(
        { impressions: 6, color: 2, sheets: 3, duplexSheets: 3 },
        { pages: 0 },
        { impressions: 50 },
        defaults,
      ),
    ).toEqual({
      Copies: 1,
      PaperId: 9,
      TotalPrintedPages: 6,
      TotalPrintedColorPages: 2,
      Color: 1,
      TotalPrintedSheets: 3,
      Duplex: 1,
    });
  });

  it('subtracts released pages and leaves out counts it cannot split from theirs', () => {
    expect(
      copyFields(
        { impressions: 9, color: 4, sheets: 9, duplexSheets: 0 },
        { pages: 4 },
        { impressions: 1, copies: 3, paperId: 1 },
        defaults,
      ),
    ).toEqual({ Copies: 3, PaperId: 1, TotalPrintedPages: 5 });
    expect(copyFields({ impressions: 9, color: 0 }, { pages: 4 }, { impressions: 1 }, defaults)).toEqual({
      Copies: 1,
      PaperId: 9,
      TotalPrintedPages: 5,
      TotalPrintedColorPages: 0,
      Color: 0,
    });
  });
});
