/**
 * Counts calls per key (a user, an organization) in a sliding window of the injected clock: at
 * most `max` calls inside `windowMs`; take() refuses the next with a TooManyRequestsError whose
 * retryAfterMs is the time until the oldest call leaves the window. At most `maxKeys` keys are
 * kept (the oldest is dropped), so a flood of fresh keys cannot grow memory. In memory only;
 * nothing to clean up.
 */
import type { Clock } from './clock.js';
import { TooManyRequestsError } from './errors.js';

/** The limit of one rate window. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

/** See the file comment. */
export class RateWindow {
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: RateLimit,
    /** Names what is counted in the refusal, e.g. "PrepareUpload calls of this user". */
    private readonly what: string,
    private readonly maxKeys = 10_000,
  ) {}

  /** Counts one call of `key`; throws TooManyRequestsError (counting nothing) when over the limit. */
  take(key: string): void {
    const now = this.clock.now();
    const recent = (this.calls.get(key) ?? []).filter((t) => now - t < this.limit.windowMs);
    this.calls.delete(key);
    if (recent.length >= this.limit.max) {
      this.calls.set(key, recent);
      const left = (recent[0] ?? now) + this.limit.windowMs - now;
      throw new TooManyRequestsError(
        `too many ${this.what}: at most ${this.limit.max} in ${Math.round(this.limit.windowMs / 1000)} s; try again in ${Math.ceil(left / 1000)} s`,
        left,
      );
    }
    recent.push(now);
    this.calls.set(key, recent);
    if (this.calls.size > this.maxKeys) this.calls.delete(this.calls.keys().next().value as string);
  }
}
