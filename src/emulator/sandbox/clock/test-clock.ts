/**
 * The emulator's adjustable clock (the test clock): the injected base clock plus an offset that
 * only grows. Every time rule of the emulator reads it (token lifetimes, the 24-hour local-job
 * rule, webhook retry schedules); `advance` moves it forward and wakes whoever waits on time
 * (listeners added with `onAdvance`, e.g. the webhook worker). The agent never sees it.
 */
import type { Clock } from '../../../lib/clock.js';

/** Largest single step: ten years, far beyond every rule of the service. */
export const MAX_ADVANCE_S = 10 * 366 * 24 * 3600;

/** A Clock whose time a developer can move forward; the owner never needs to clean up. */
export class TestClock implements Clock {
  private offset = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.base.now() + this.offset;
  }

  /** How far the clock has been moved, in milliseconds. */
  offsetMs(): number {
    return this.offset;
  }

  /** Moves the clock `ms` milliseconds forward (never back) and wakes every listener. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot move the clock by ${ms} ms`);
    this.offset += ms;
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every advance (timers that wait for a time re-read the clock); returns the function that stops it. */
  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
