/**
 * OutOfLineWaits on its own, with a ledger and runner standing in and fake timers: the wait of a
 * job whose runner threw is counted only while it keeps throwing (a run that did not throw starts
 * it again at 10 ms), clear() leaves no timer behind, and settled() waits for every try beside the
 * line still running.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { OutOfLineWaits } from '../../../../src/agent/jobs/out-of-line-waits.js';
import type { JobLedger } from '../../../../src/store/job-ledger.js';

describe('OutOfLineWaits', () => {
  const job = { jobId: 'A', printerId: 'p1', state: 'downloading' };
  let tries: string[];
  let attempt: Promise<void>;

  const waits = () =>
    new OutOfLineWaits({
      ledger: { get: () => job } as unknown as JobLedger,
      runner: {
        waitsForDocument: () => false,
        retryDelayMs: () => 0,
        documentWaitReason: () => undefined,
      } as unknown as JobRunner,
      running: () => true,
      cancelled: () => false,
      enqueue: () => {},
      tryDownload: (_printerId, jobId) => {
        tries.push(jobId);
        return attempt;
      },
      left: () => {},
    });

  beforeEach(() => {
    vi.useFakeTimers();
    tries = [];
    attempt = Promise.resolve();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits 10 ms again once a run did not throw, however often the runner threw before', () => {
    const out = waits();
    for (let i = 0; i < 4; i++) out.countRun('A', true);
    out.countRun('A', false);
    expect(out.leave('p1', 'A')).toBe(true);
    vi.advanceTimersByTime(9);
    expect(tries).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(tries).toEqual(['A']);
  });

  it('leaves no timer and no count of throws after clear()', () => {
    const out = waits();
    for (let i = 0; i < 4; i++) out.countRun('A', true);
    expect(out.leave('p1', 'A')).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    out.clear();
    expect(vi.getTimerCount()).toBe(0);
    // The count of throws went too: the next wait is 10 ms again, not 80.
    expect(out.leave('p1', 'A')).toBe(true);
    vi.advanceTimersByTime(10);
    expect(tries).toEqual(['A']);
  });

  it('settled() waits for a try beside the line still running', async () => {
    let answer = () => {};
    attempt = new Promise<void>((resolve) => (answer = resolve));
    const out = waits();
    expect(out.leave('p1', 'A')).toBe(true);
    vi.advanceTimersByTime(10);
    expect(tries).toEqual(['A']);
    let settled = false;
    const done = out.settled().then(() => {
      settled = true;
    });
    await vi.runAllTimersAsync();
    expect(settled).toBe(false);
    answer();
    await done;
    expect(settled).toBe(true);
  });
});
