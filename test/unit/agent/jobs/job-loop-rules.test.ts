/**
 * JobLoop's own rules, beside the runner's: offers taken only while running and only once, with
 * their `received` event and log line; a job for a printer this connector does not serve fails at
 * once; start() makes the spool folder, resumes unfinished jobs and feeds the watchdog, stop()
 * ends that; a cancel of a job that ended is ignored; a runner that throws is logged and the loop
 * goes on; downloads ahead per printer are bounded by `prefetch` (4 by default).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JobLoopDeps, JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import type { JobLedger } from '../../../../src/store/job-ledger.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';

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
    loop = new JobLoop({
      ledger,
      runner: new JobRunner(rig.deps({ download })),
      emit: rig.deps().emit,
      backendFor: (id) => (id === 'p1' ? printer : undefined),
      spoolDir: rig.spoolDir,
      logger: rig.log,
      ...extra,
    });
    return loop;
  };
  /** Resolves once every job of `ids` ended (the ledger's word), checking after each event. */
  const ended = (ids: string[]) =>
    until(() =>
      ids.every((id) => ['completed', 'failed', 'cancelled'].includes(ledger.get(id)?.state ?? '')),
    );

  /** Resolves once `holds` is true, checking after each turn of the event loop. */
  const until = (holds: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (holds() ? resolve() : setImmediate(check));
      check();
    });

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

  it('ignores a cancel of a job that ended or that it never had', async () => {
    const jobs = loopWith();
    jobs.start();
    jobs.offer(jobOffer('j'));
    await ended(['j']);
    jobs.cancel('j');
    jobs.cancel('never');
    expect(rig.logged('cancel requested')).toEqual([]);
    expect(ledger.get('j')?.state).toBe('completed');
  });

  it('logs a runner that throws and goes on with the other jobs', async () => {
    const jobs = loopWith({ runner: new BrokenRunner(rig.deps({ download }), ['bad']) });
    jobs.start();
    jobs.offer(jobOffer('bad'));
    jobs.offer(jobOffer('good'));
    await ended(['good']);
    // The broken job, never fetched, joins the line again and breaks again: logged each time.
    const failures = rig.logged('job runner failed');
    expect(failures.length).toBeGreaterThan(0);
    for (const line of failures)
      expect(line).toMatchObject({ level: 'error', job: 'bad', error: 'prepare bad broke' });
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
    await until(() => ledger.get('j')?.state === 'downloading');
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
