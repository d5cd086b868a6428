import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { TooManyRequestsError } from '../../../src/lib/errors.js';
import { FailureThrottle } from '../../../src/lib/failure-throttle.js';

function refusal(fn: () => void): TooManyRequestsError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof TooManyRequestsError) return error;
    throw error;
  }
}

describe('FailureThrottle', () => {
  const limits = { maxFailures: 3, windowMs: 60_000, lockMs: 120_000, maxKeys: 100 };

  it('locks a key after maxFailures in the window, for lockMs, with the time left as retryAfterMs', () => {
    const clock = new ManualClock();
    const throttle = new FailureThrottle(clock, limits, 'sign-in attempts for this account');
    for (let i = 0; i < 3; i++) {
      expect(refusal(() => throttle.check('client:a'))).toBeUndefined();
      throttle.fail('client:a');
    }
    clock.advance(30_000);
    const refused = refusal(() => throttle.check('client:a'));
    expect(refused?.message).toBe('too many failed sign-in attempts for this account; try again in 90 s');
    expect(refused?.retryAfterMs).toBe(90_000);
    expect(refusal(() => throttle.check('client:b'))).toBeUndefined();
    clock.advance(90_000);
    expect(refusal(() => throttle.check('client:a'))).toBeUndefined();
  });

  it('forgets failures older than the window and all of them after a success', () => {
    const clock = new ManualClock();
    const throttle = new FailureThrottle(clock, limits, 'attempts');
    throttle.fail('k');
    throttle.fail('k');
    clock.advance(60_001);
    throttle.fail('k');
    throttle.fail('k');
    expect(refusal(() => throttle.check('k'))).toBeUndefined();
    throttle.succeed('k');
    throttle.fail('k');
    throttle.fail('k');
    expect(refusal(() => throttle.check('k'))).toBeUndefined();
  });

  it('forgive() takes back a failure counted ahead of its outcome', () => {
    const clock = new ManualClock();
    const throttle = new FailureThrottle(clock, limits, 'attempts');
    throttle.fail('k');
    throttle.fail('k');
    throttle.forgive('k');
    throttle.fail('k');
    expect(refusal(() => throttle.check('k'))).toBeUndefined();
    throttle.fail('k');
    expect(refusal(() => throttle.check('k'))?.retryAfterMs).toBe(120_000);
  });

  it('keeps at most maxKeys keys, dropping the oldest', () => {
    const clock = new ManualClock();
    const throttle = new FailureThrottle(clock, { ...limits, maxKeys: 2 }, 'attempts');
    for (let i = 0; i < 3; i++) throttle.fail('old');
    throttle.fail('b');
    throttle.fail('c');
    expect(throttle.size()).toBe(2);
    expect(refusal(() => throttle.check('old'))).toBeUndefined();
  });
});
