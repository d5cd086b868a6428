/**
 * The spec's time rules of failed webhook deliveries: automatic retries with jittered exponential
 * backoff for three days after the first attempt, and failed events kept for 30 days. Pure.
 */
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import type { DueDelivery } from './webhook-delivery-records.js';

const DAY_MS = 24 * 3600_000;
/** Automatic retries stop this long after the first attempt (the spec: three days). */
export const RETRY_WINDOW_MS = 3 * DAY_MS;
/** Failed events are kept this long after their first attempt (the spec: 30 days). */
export const FAILED_EVENT_STORAGE_MS = 30 * DAY_MS;
/** One minute, doubling, at most six hours apart, each delay drawn from its upper 80 %. */
export const WEBHOOK_BACKOFF: BackoffPolicy = {
  initialMs: 60_000,
  maxMs: 6 * 3600_000,
  factor: 2,
  jitter: 0.2,
};

/** Pending with the next backoff while inside the 3-day window; failed (no automatic retry) after. */
export function nextAfterFailure(d: DueDelivery, now: number, random: () => number) {
  const attempts = d.attempts + 1;
  const firstAttemptAt = d.firstAttemptAt ?? now;
  const next = now + backoffDelay(WEBHOOK_BACKOFF, attempts - 1, random);
  const pending = d.status !== 'failed' && next <= firstAttemptAt + RETRY_WINDOW_MS;
  return {
    status: pending ? ('pending' as const) : ('failed' as const),
    attempts,
    firstAttemptAt,
    lastAttemptAt: now,
    nextAttemptAt: pending ? next : null,
  };
}
