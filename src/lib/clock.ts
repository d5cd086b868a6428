/**
 * Injectable time. Every rule of the spec that depends on time (token lifetimes, the 24-hour
 * local-job inactivity, 3-day webhook retries, 30-day storage) reads the time through a Clock,
 * so tests move time forward in milliseconds instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.current += ms;
  }
  /** Sets the clock to an absolute time in milliseconds since the epoch. */
  set(ms: number): void {
    this.current = ms;
  }
}

/** Seconds since the epoch, as JWT and the /TPFM/ job list use them. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
