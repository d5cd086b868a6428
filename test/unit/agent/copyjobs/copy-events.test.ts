import { describe, expect, it } from 'vitest';
import { CopyEventCounter, parseCopyEvent } from '../../../../src/agent/copyjobs/copy-events.js';

describe('parseCopyEvent', () => {
  it('accepts a full event', () => {
    expect(
      parseCopyEvent({
        pages: 4,
        color_pages: 2,
        sheets: 2,
        duplex: true,
        copies: 2,
        paper_id: 9,
        status: 'failed',
      }),
    ).toEqual({ pages: 4, colorPages: 2, sheets: 2, duplex: true, copies: 2, paperId: 9, failed: true });
  });

  it('names every broken rule at once', () => {
    expect(() => parseCopyEvent({ color_pages: -1, duplex: 'yes', status: 'ok', extra: 1 })).toThrow(
      'extra: is not a field of a copy event; pages: is required; color_pages: must be an integer from 0 to 1000000; duplex: must be true or false; status: must be succeeded or failed',
    );
    expect(() => parseCopyEvent({ pages: 2, color_pages: 3 })).toThrow('color_pages: must be at most pages');
    expect(() => parseCopyEvent([1])).toThrow('body: must be a JSON object');
  });
});

describe('CopyEventCounter', () => {
  it('keeps running totals; sheets default from pages and duplex', async () => {
    const counter = new CopyEventCounter();
    counter.add({ pages: 3 });
    counter.add({ pages: 4, duplex: true, colorPages: 1, copies: 2 });
    expect(await counter.read()).toEqual({ impressions: 7, color: 1, sheets: 5, duplexSheets: 2, copies: 2 });
  });
});
