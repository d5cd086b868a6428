import { describe, expect, it } from 'vitest';
import { meanWithInterval, median, percentile } from '../../../bench/support/stats.js';

describe('bench statistics', () => {
  it('takes the median of an odd and an even count, in any order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('takes a percentile of sorted values, NaN of none', () => {
    expect(percentile([10, 20, 30, 40], 50)).toBe(30);
    expect(percentile([10, 20, 30, 40], 95)).toBe(40);
    expect(percentile([], 50)).toBeNaN();
  });

  it('gives the mean with the half-width of its 95% interval', () => {
    // Sample standard deviation of 1, 2, 3, 4, 5 is sqrt(2.5); 1.96 * sqrt(2.5 / 5) = 1.3859...
    const { mean, halfWidth } = meanWithInterval([1, 2, 3, 4, 5]);
    expect(mean).toBe(3);
    expect(halfWidth).toBeCloseTo(1.385929, 5);
    expect(meanWithInterval([7]).halfWidth).toBeNaN();
  });
});
