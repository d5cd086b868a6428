import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/lib/backoff.js';

describe('backoffDelay', () => {
  const policy = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 };
  it.each([
    [0, 100],
    [1, 200],
    [3, 800],
    [4, 1000],
    [20, 1000],
  ])('attempt %i waits %i ms without jitter', (attempt, expected) => {
    expect(backoffDelay(policy, attempt)).toBe(expected);
  });
  it('draws jittered delays from the lower part of the range', () => {
    const jittered = { ...policy, jitter: 0.5 };
    expect(backoffDelay(jittered, 1, () => 0)).toBe(100);
    expect(backoffDelay(jittered, 1, () => 1)).toBe(200);
  });
});
