import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { TooManyRequestsError } from '../../../src/lib/errors.js';
import { RateWindow } from '../../../src/lib/rate-window.js';

describe('RateWindow', () => {
  it('allows max calls in the window, then refuses with the time until the oldest leaves it', () => {
    const clock = new ManualClock(0);
    const rate = new RateWindow(clock, { max: 3, windowMs: 60_000 }, 'calls');
    rate.take('a');
    clock.advance(10_000);
    rate.take('a');
    rate.take('a');
    let refusal: unknown;
    try {
      rate.take('a');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(TooManyRequestsError);
    expect((refusal as TooManyRequestsError).retryAfterMs).toBe(50_000);
    expect((refusal as Error).message).toBe('too many calls: at most 3 in 60 s; try again in 50 s');
    rate.take('b');
    clock.advance(50_000);
    rate.take('a');
    expect(() => rate.take('a')).toThrow(TooManyRequestsError);
  });

  it('keeps at most maxKeys keys', () => {
    const clock = new ManualClock(0);
    const rate = new RateWindow(clock, { max: 1, windowMs: 60_000 }, 'calls', 2);
    rate.take('a');
    rate.take('b');
    rate.take('c');
    // 'a' was dropped to keep two keys: it starts afresh.
    expect(() => rate.take('a')).not.toThrow();
    expect(() => rate.take('c')).toThrow(TooManyRequestsError);
  });
});
