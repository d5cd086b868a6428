import { describe, expect, it } from 'vitest';
import { ippCounters } from '../../../../src/agent/copyjobs/ipp-counters.js';

describe('ippCounters', () => {
  it('reads impressions, colour and two-sided sheets from the -col forms', () => {
    expect(
      ippCounters({
        'printer-impressions-completed': 120,
        'printer-impressions-completed-col': { monochrome: 100, 'full-color': 15, 'full-color-two-sided': 5 },
        'printer-media-sheets-completed': 80,
        'printer-media-sheets-completed-col': { monochrome: 60, 'monochrome-two-sided': 20 },
      }),
    ).toEqual({ impressions: 120, color: 20, sheets: 80, duplexSheets: 20 });
  });

  it('is undefined without printer-impressions-completed (ippeveprinter reports none)', () => {
    expect(ippCounters({ 'printer-media-sheets-completed': 3 })).toBeUndefined();
    expect(ippCounters({ 'printer-impressions-completed': -1 })).toBeUndefined();
  });
});
