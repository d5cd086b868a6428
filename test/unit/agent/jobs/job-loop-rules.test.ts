/**
 * JobLoop's own rules, beside the runner's: offers taken only while running and only once, with
 * their `received` event and log line; a job for a printer this connector does not serve fails at
 * once; start() makes the spool folder, resumes unfinished jobs and feeds the watchdog, stop()
 * ends that; a cancel of a job that ended is ignored; a runner that throws is logged and the loop
 * goes on; downloads ahead per printer are bounded by `prefetch` (4 by default).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type JobLoopDeps, type JobLoop, resumeOrder } from '../../../../src/agent/jobs/job-loop.js';
import { BROKEN_RUN_MAX_DELAY_MS, brokenRunDelayMs } from '../../../../src/agent/jobs/out-of-line-waits.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import type { JobLedger } from '../../../../src/store/job-ledger.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter, eachTurnUntil } from '../../../support/job-step-rig.js';

/** A runner whose prepare phase throws for the jobs named (a bug, not a job's failure). */
class BrokenRunner extends JobRunner {
  constructor(
    deps: JobRunnerDeps,
    private readonly broken: string[],
  ) {
    super(deps);
  }
  override prepare(...args: Parameters<JobRunner['prepare']>): ReturnType<JobRunner['prepare']> {
    if (this.broken.includes(args[0])) return Promise.reject(new Error(`prepare ${args[0]} broke`));
    return super.prepare(...args);
  }
}

describe('JobLoop', () => {
  let rig: JobStepRig;
  let ledger: JobLedger;
  let printer: RecordingPrinter;
  let loop: JobLoop | undefined;

  const download: JobRunnerDeps['download'] = async (_offer, target) => writeFileSync(target, '%PDF-');
  const loopWith = (extra: Partial<JobLoopDeps> = {}) => {
    loop = rig.loop(
      new JobRunner(rig.deps({ download })),
      (id) => (id === 'p1' ? printer : undefined),
      extra,
    );
    return loop;
  };
  /** Resolves once every job of `ids` ended (the ledger's word), checking after each event. */
  const ended = (ids: string[]) =>
    until(() =>
      ids.every((id) => ['completed', 'failed', 'cancelled'].includes(ledger.get(id)?.state ?? '')),
    );

  const until = eachTurnUntil;

  beforeEach(() => {
    rig = new JobStepRig({ clock: systemClock });
    ledger = rig.ledger;
    printer = new RecordingPrinter();
    loop = undefined;
  });
  afterEach(async () => {
    await loop?.stop();
    rig.close();
  });

  it('takes no offer before start, and each job once, with its received event and log line', async () => {
    const jobs = loopWith();
    expect(jobs.offer(jobOffer('j'))).toBe(false);
    expect(ledger.get('j')).toBeUndefined();
    jobs.start();
    expect(jobs.offer(jobOffer('j'))).toBe(true);
    expect(jobs.offer(jobOffer('j'))).toBe(false);
    await ended(['j']);
    // Once its watch is over the job no longer counts in the backlog.
    await expect.poll(() => jobs.backlog()).toBe(0);
    expect(rig.kinds('j')).toEqual(['received', 'downloading', 'printing', 'completed']);
    expect(rig.logged('job received')).toEqual([expect.objectContaining({ job: 'j', printer: 'p1' })]);
    await jobs.stop();
    expect(jobs.offer(jobOffer('k'))).toBe(false);
  });

  it('logs an offer the ledger would not add, and takes it no further', () => {
    const jobs = loopWith();
    jobs.start();
    ledger.add = () => false;
    expect(jobs.offer(jobOffer('j'))).toBe(false);
    expect(rig.events).toEqual([]);
    expect(rig.logged('job received')).toEqual([]);
  });

  it('logs an offer it could not record, which will be offered again', () => {
    const jobs = loopWith();
    jobs.start();
    ledger.add = () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    expect(jobs.offer(jobOffer('j'))).toBe(false);
    expect(rig.logged('recording the job failed; it will be offered again')).toEqual([
      expect.objectContaining({ level: 'warn', job: 'j', error: 'SQLITE_FULL: database or disk is full' }),
    ]);
  });

  it('fails a job for a printer this connector does not serve, saying which', () => {
    const jobs = loopWith();
    jobs.start();
    jobs.offer({ ...jobOffer('j'), printer_id: 'p9' });
    const message = 'printer p9 is not configured at this connector';
    expect(ledger.get('j')).toMatchObject({ state: 'failed', lastError: message });
    expect(rig.events).toEqual([{ kind: 'received' }, { kind: 'failed', error_code: 3011, message }]);
    expect(rig.logged('job for a printer this connector does not serve')).toEqual([
      expect.objectContaining({ level: 'warn', job: 'j', printer: 'p9' }),
    ]);
    expect(jobs.backlog()).toBe(0);
  });

  it('start makes the spool folder, resumes unfinished jobs with a log line each, and feeds the watchdog', async () => {
    ledger.add(jobOffer('j'));
    let fed = 0;
    const spoolDir = join(rig.spoolDir, 'not', 'yet');
    const jobs = loopWith({
      spoolDir,
      runner: new JobRunner(rig.deps({ download, spoolDir })),
      notifier: { watchdogIntervalMs: 60_000, watchdog: () => void fed++ } as JobLoopDeps['notifier'],
    });
    jobs.start();
    expect(existsSync(spoolDir)).toBe(true);
    expect(fed).toBe(1);
    expect(rig.logged('resuming job')).toEqual([expect.objectContaining({ job: 'j', state: 'offered' })]);
    await ended(['j']);
    await jobs.stop();
  });

  it('a job refused busy with no job of ours at the printer waits the short busy delay, not for a previous job', async () => {
    let busy = 1;
    const take = printer.submit.bind(printer);
    printer.submit = async (job) => {
      if (busy-- > 0) throw new RetryableError('printer_busy', 'server-error-busy');
      return take(job);
    };
    const jobs = loopWith({
      runner: new JobRunner(rig.deps({ download, jobs: { ...rig.jobs, retry_max_ms: 600_000 } })),
    });
    jobs.start();
    jobs.offer(jobOffer('j'));
    await ended(['j']);
    expect(ledger.get('j')).toMatchObject({ state: 'completed', attempts: 2 });
  });

  it('a cancel wakes a job waiting out a long backoff at an unreachable printer', async () => {
    const take = printer.submit.bind(printer);
    printer.submit = async () => {
      throw new RetryableError('printer_unreachable', 'connect ECONNREFUSED', {
        cause: Object.assign(new Error('ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    };
    const jobs = loopWith({
      runner: new JobRunner(
        rig.deps({ download, jobs: { ...rig.jobs, retry_initial_ms: 600_000, retry_max_ms: 600_000 } }),
      ),
    });
    jobs.start();
    jobs.offer(jobOffer('j'));
    await until(() => ledger.get('j')?.attempts === 1 && ledger.get('j')?.state === 'spooled');
    jobs.cancel('j');
    await ended(['j']);
    expect(ledger.get('j')?.state).toBe('cancelled');
    printer.submit = take;
  });

  it('stop waits for the Print-Job in flight before it returns', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let submitting = false;
    const take = printer.submit.bind(printer);
    printer.submit = async (job) => {
      submitting = true;
      await gate;
      return take(job);
    };
    const jobs = loopWith();
    jobs.start();
    jobs.offer(jobOffer('j'));
    await until(() => submitting);
    let stopped = false;
    const stopping = jobs.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(ledger.get('j')?.state).toBe('submitted');
  });

  it('a download stopped midway leaves no timer behind once stop() returns', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let downloading = false;
      const jobs = loopWith({
        runner: new JobRunner(
          rig.deps({
            download: (_offer, _target, signal) =>
              new Promise((_resolve, reject) => {
                downloading = true;
                signal.addEventListener('abort', () => reject(signal.reason), { once: true });
              }),
          }),
        ),
      });
      jobs.start();
      jobs.offer(jobOffer('j'));
      await until(() => downloading);
      await jobs.stop();
      expect(ledger.get('j')?.state).toBe('offered');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stop ends the watchdog feed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      let fed = 0;
      const jobs = loopWith({
        notifier: { watchdogIntervalMs: 1000, watchdog: () => void fed++ } as JobLoopDeps['notifier'],
      });
      jobs.start();
      vi.advanceTimersByTime(2000);
      expect(fed).toBe(3);
      await jobs.stop();
      vi.advanceTimersByTime(5000);
      expect(fed).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ignores a cancel of a job that ended or that it never had', async () => {
    const jobs = loopWith();
    jobs.start();
    jobs.offer(jobOffer('j'));
    await ended(['j']);
    jobs.offer({ ...jobOffer('f'), printer_id: 'p9' });
    ledger.add(jobOffer('c'));
    ledger.move('c', 'cancelled');
    for (const id of ['j', 'f', 'c', 'never']) jobs.cancel(id);
    expect(rig.logged('cancel requested')).toEqual([]);
    expect(['j', 'f', 'c'].map((id) => ledger.get(id)?.state)).toEqual(['completed', 'failed', 'cancelled']);
  });

  it('logs a runner that throws and goes on with the other jobs', async () => {
    const jobs = loopWith({ runner: new BrokenRunner(rig.deps({ download }), ['bad']) });
    jobs.start();
    jobs.offer(jobOffer('bad'));
    jobs.offer(jobOffer('good'));
    await ended(['good']);
    // The broken job, never fetched, joins the line again and breaks again: logged each time.
    await until(() => rig.logged('job runner failed').length >= 2);
    const failures = rig.logged('job runner failed');
    for (const line of failures)
      expect(line).toMatchObject({ level: 'error', job: 'bad', error: 'prepare bad broke' });
  });

  it('a runner that keeps throwing is tried again after 10, 20, 40 ms and so on, not every 10 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const jobs = loopWith({ runner: new BrokenRunner(rig.deps({ download }), ['bad']) });
      jobs.start();
      jobs.offer(jobOffer('bad'));
      // Tries at 0, 10, 30, 70, 150, 310, 630 and 1,270 ms; the ninth at 2,550 ms.
      await vi.advanceTimersByTimeAsync(1_270);
      expect(rig.logged('job runner failed')).toHaveLength(8);
      await vi.advanceTimersByTimeAsync(1_279);
      expect(rig.logged('job runner failed')).toHaveLength(8);
      await vi.advanceTimersByTimeAsync(1);
      expect(rig.logged('job runner failed')).toHaveLength(9);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a job whose download keeps failing waits its backoff each time: a run that did not throw is not counted as one that did', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const triedAt: number[] = [];
      const jobs = loopWith({
        runner: new JobRunner(
          rig.deps({
            jobs: { ...rig.jobs, retry_initial_ms: 10, retry_max_ms: 10, download_attempts: 10 },
            random: () => 1,
            download: async () => {
              triedAt.push(Date.now());
              throw new RetryableError('network', 'ECONNREFUSED');
            },
          }),
        ),
      });
      jobs.start();
      jobs.offer(jobOffer('j'));
      for (let tries = 1; tries < 6; tries++) {
        // The try failed and the job waits out of line: its timer is the only one.
        await until(() => triedAt.length === tries && vi.getTimerCount() === 1);
        await vi.advanceTimersToNextTimerAsync();
      }
      await until(() => triedAt.length === 6);
      // 10 ms each (the backoff), not 10, 20, 40, 80, 160 ms (the waits of a runner that throws).
      expect(triedAt.slice(1).map((at, i) => at - (triedAt[i] ?? 0))).toEqual([10, 10, 10, 10, 10]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('brokenRunDelayMs doubles from 10 ms up to a minute', () => {
    expect([0, 1, 2, 3, 4, 13, 14, 40].map(brokenRunDelayMs)).toEqual([
      10,
      10,
      20,
      40,
      80,
      40_960,
      BROKEN_RUN_MAX_DELAY_MS,
      BROKEN_RUN_MAX_DELAY_MS,
    ]);
    expect(BROKEN_RUN_MAX_DELAY_MS).toBe(60_000);
  });

  it('a cancel ends a job waiting out of line for its next download at once, with its event', async () => {
    let tries = 0;
    let failed: () => void = () => {};
    const firstFailure = new Promise<void>((resolve) => {
      failed = resolve;
    });
    const jobs = loopWith({
      runner: new JobRunner(
        rig.deps({
          jobs: { ...rig.jobs, retry_initial_ms: 60_000, retry_max_ms: 60_000 },
          download: async () => {
            tries++;
            failed();
            throw new RetryableError('network', 'ECONNREFUSED');
          },
        }),
      ),
    });
    jobs.start();
    jobs.offer(jobOffer('j'));
    await firstFailure;
    // Out of line: the backlog no longer counts it.
    await until(() => ledger.get('j')?.state === 'downloading' && jobs.backlog() === 0);
    jobs.cancel('j');
    expect(rig.logged('cancel requested')).toEqual([expect.objectContaining({ job: 'j' })]);
    await ended(['j']);
    expect(ledger.get('j')?.state).toBe('cancelled');
    expect(rig.kinds('j').at(-1)).toBe('cancelled');
    expect(tries).toBe(1);
  });

  describe('downloads ahead', () => {
    /** A download that holds until the test lets it go; counts the downloads running at once. */
    const gated = () => {
      const gates: (() => void)[] = [];
      let running = 0;
      let most = 0;
      let started: () => void = () => {};
      const download: JobRunnerDeps['download'] = async (_offer, target) => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => {
          gates.push(resolve);
          started();
        });
        writeFileSync(target, '%PDF-');
        running--;
      };
      /** Resolves once `n` downloads wait at their gates. */
      const waiting = (n: number) =>
        new Promise<void>((resolve) => {
          started = () => {
            if (gates.length >= n) resolve();
          };
          started();
        });
      return { download, gates, waiting, most: () => most };
    };

    it.each([
      [undefined, 4],
      [2, 2],
    ])('prefetch %s: at most %i documents download at once per printer', async (prefetch, limit) => {
      const gate = gated();
      const jobs = loopWith({
        runner: new JobRunner(rig.deps({ download: gate.download })),
        ...(prefetch === undefined ? {} : { prefetch }),
      });
      jobs.start();
      const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
      for (const id of ids) jobs.offer(jobOffer(id));
      await gate.waiting(limit);
      // Each download let go lets exactly one more start, never more.
      for (let i = 0; i < ids.length; i++) {
        await gate.waiting(Math.min(limit + i, ids.length));
        gate.gates[i]?.();
      }
      await ended(ids);
      expect(gate.most()).toBe(limit);
      expect(printer.submitted).toHaveLength(ids.length);
    });
  });
});

describe('resumeOrder', () => {
  it('puts interrupted submissions first, each group in arrival order, each job once', () => {
    const jobs = [
      { id: 'a', state: 'spooled' },
      { id: 'b', state: 'submitting' },
      { id: 'c', state: 'offered' },
      { id: 'd', state: 'submitting' },
    ];
    expect(resumeOrder(jobs).map((job) => job.id)).toEqual(['b', 'd', 'a', 'c']);
  });
});
