/**
 * Counts failed attempts per key (a client id, a user name, a device, a source address) in a
 * sliding window of the injected clock. A key with `maxFailures` failures inside `windowMs` is
 * locked for `lockMs`: check() then throws a TooManyRequestsError whose retryAfterMs is the time
 * left, before any expensive work is spent. Callers may count a failure before the outcome is
 * known (so parallel attempts cannot all slip in before the first one fails) and forgive() it. A success clears the key. At most `maxKeys` keys are
 * kept (the oldest is dropped), so a flood of fresh keys cannot grow memory. In memory only;
 * nothing to clean up.
 */
import type { Clock } from './clock.js';
import { TooManyRequestsError } from './errors.js';

/** The limits of one throttle. */
export interface FailureLimits {
  maxFailures: number;
  windowMs: number;
  lockMs: number;
  maxKeys: number;
}

interface Entry {
  failures: number[];
  lockedUntil: number;
}

/** See the file comment. */
export class FailureThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: FailureLimits,
    /** Names what is counted in the refusal, e.g. "sign-in attempts for this client". */
    private readonly what: string,
  ) {}

  /** Throws TooManyRequestsError while `key` is locked. */
  check(key: string): void {
    const entry = this.entries.get(key);
    const left = entry ? entry.lockedUntil - this.clock.now() : 0;
    if (left <= 0) return;
    throw new TooManyRequestsError(
      `too many failed ${this.what}; try again in ${Math.ceil(left / 1000)} s`,
      left,
    );
  }

  /** Records one failure of `key`; locks it when the window holds maxFailures. */
  fail(key: string): void {
    const now = this.clock.now();
    const entry = this.entries.get(key) ?? { failures: [], lockedUntil: 0 };
    this.entries.delete(key);
    entry.failures = entry.failures.filter((t) => now - t < this.limits.windowMs);
    entry.failures.push(now);
    if (entry.failures.length >= this.limits.maxFailures) {
      entry.lockedUntil = now + this.limits.lockMs;
      entry.failures = [];
    }
    this.entries.set(key, entry);
    if (this.entries.size > this.limits.maxKeys)
      this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Takes back the latest failure of `key` (one counted before its outcome was known). */
  forgive(key: string): void {
    this.entries.get(key)?.failures.pop();
  }

  /** Forgets the failures of `key` (a correct secret). */
  succeed(key: string): void {
    this.entries.delete(key);
  }

  /** Keys tracked now. */
  size(): number {
    return this.entries.size;
  }
}
