import { describe, expect, it } from 'vitest';
import type { DueDelivery } from '../../../../src/emulator/webhooks/webhook-delivery-records.js';
import {
  FAILED_EVENT_STORAGE_MS,
  nextAfterFailure,
  RETRY_WINDOW_MS,
  WEBHOOK_BACKOFF,
} from '../../../../src/emulator/webhooks/webhook-retry-rules.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const top = () => 1;
const bottom = () => 0;

function delivery(over: Partial<DueDelivery> = {}): DueDelivery {
  return {
    endpointId: 'e1',
    eventId: 'ev1',
    body: '{}',
    status: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    nextAttemptAt: T0,
    inRetryAll: false,
    ...over,
  };
}

describe('webhook time rules', () => {
  it('retries for three days and keeps failed events for 30 (the spec)', () => {
    expect([RETRY_WINDOW_MS, FAILED_EVENT_STORAGE_MS]).toEqual([3 * DAY, 30 * DAY]);
    expect(WEBHOOK_BACKOFF).toEqual({ initialMs: MINUTE, maxMs: 6 * HOUR, factor: 2, jitter: 0.2 });
  });

  it('after a first failure: pending, one minute later at most, the first attempt recorded', () => {
    expect(nextAfterFailure(delivery(), T0, top)).toEqual({
      status: 'pending',
      attempts: 1,
      firstAttemptAt: T0,
      lastAttemptAt: T0,
      nextAttemptAt: T0 + MINUTE,
    });
    expect(nextAfterFailure(delivery(), T0, bottom).nextAttemptAt).toBe(T0 + 0.8 * MINUTE);
  });

  it('doubles the delay with each attempt, keeping the first attempt time', () => {
    const third = nextAfterFailure(delivery({ attempts: 2, firstAttemptAt: T0 }), T0 + HOUR, top);
    expect(third).toEqual({
      status: 'pending',
      attempts: 3,
      firstAttemptAt: T0,
      lastAttemptAt: T0 + HOUR,
      nextAttemptAt: T0 + HOUR + 4 * MINUTE,
    });
  });

  it('retries while the next attempt falls within three days of the first, and not after', () => {
    const d = delivery({ attempts: 20, firstAttemptAt: T0 });
    const lastChance = T0 + RETRY_WINDOW_MS - 6 * HOUR;
    expect(nextAfterFailure(d, lastChance, top)).toMatchObject({
      status: 'pending',
      nextAttemptAt: T0 + RETRY_WINDOW_MS,
    });
    expect(nextAfterFailure(d, lastChance + 1, top)).toEqual({
      status: 'failed',
      attempts: 21,
      firstAttemptAt: T0,
      lastAttemptAt: lastChance + 1,
      nextAttemptAt: null,
    });
  });

  it('keeps a delivery that had already failed failed (a manual retry that failed again)', () => {
    const d = delivery({ status: 'failed', attempts: 3, firstAttemptAt: T0 });
    expect(nextAfterFailure(d, T0 + HOUR, top)).toMatchObject({ status: 'failed', nextAttemptAt: null });
  });
});
