/**
 * Exponential backoff with full jitter. Pure: callers own the sleeping, so the same policy
 * drives the job loop, the outbox and reconnects, and tests check delays without waiting.
 */
export interface BackoffPolicy {
  /** First delay in ms. */
  initialMs: number;
  /** Largest delay in ms. */
  maxMs: number;
  /** Growth factor per attempt. */
  factor: number;
  /** 0 = no jitter, 1 = full jitter (delay drawn from [0, d]). */
  jitter: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.5 };

/** Delay before retry number `attempt` (0-based). `random` is injectable for tests. */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
  const spread = base * policy.jitter;
  return Math.round(base - spread + random() * spread);
}
