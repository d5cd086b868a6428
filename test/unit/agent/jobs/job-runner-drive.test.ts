/**
 * JobRunner's own rules, beside its steps': a cancelled job never downloads or goes to the
 * printer, a failed download waits out of the runner (retryDelayMs, waitingToRetry), a repair
 * comes before a submission, and how drive() treats a step that throws (an error trying again
 * cannot fix fails the job, a temporary one waits with backoff, a stop leaves the job as it is,
 * a cancel wins) and cleans up a job that ended (its spool file, its waiting report).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import type { JobControl, JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import type { SubmittedJob } from '../../../../src/printing/printer-backend.js';
import type { LedgerJob } from '../../../../src/store/job-ledger.js';
import { quietControl } from '../../../support/job-control.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';

/** A recording printer whose name lookups fail while `unreachable` counts down. */
class FlakyLookupPrinter extends RecordingPrinter {
  unreachable = 0;
  override async findJobByName(name: string): Promise<SubmittedJob | undefined> {
    if (this.unreachable-- > 0)
      throw new RetryableError('printer_unreachable', 'connect ECONNREFUSED', {
        cause: Object.assign(new Error('ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    return super.findJobByName(name);
  }
}

describe('JobRunner', () => {
  let rig: JobStepRig;
  let clock: ManualClock;
  let downloads: number;
  let printer: FlakyLookupPrinter;

  const runner = (extra: Partial<JobRunnerDeps> = {}) =>
    new JobRunner(
      rig.deps({
        random: () => 1,
        download: async (_offer, target) => {
          downloads++;
          writeFileSync(target, '%PDF-');
        },
        ...extra,
      }),
    );
  const cancelledControl = (): JobControl => ({ ...quietControl(), cancelled: () => true });
  const added = (id = 'j'): LedgerJob => {
    rig.ledger.add(jobOffer(id));
    return rig.ledger.get(id) as LedgerJob;
  };

  beforeEach(() => {
    clock = new ManualClock();
    rig = new JobStepRig({ logLevel: 'debug', clock, jobs: { retry_initial_ms: 2, retry_max_ms: 8 } });
    downloads = 0;
    printer = new FlakyLookupPrinter();
  });
  afterEach(() => rig.close());

  it('cancels a job cancelled before its download, fetching nothing', async () => {
    added();
    expect(await runner().prepare('j', cancelledControl())).toMatchObject({ state: 'cancelled' });
    expect(downloads).toBe(0);
    expect(rig.kinds('j')).toEqual(['cancelled']);
  });

  it('cancels a job cancelled once spooled, without the printer', async () => {
    added();
    const jobs = runner();
    await jobs.prepare('j', quietControl());
    expect(await jobs.submit('j', printer, cancelledControl())).toMatchObject({ state: 'cancelled' });
    expect(printer.submitted).toEqual([]);
    // Ended: its spool file removed.
    expect(existsSync(join(rig.spoolDir, 'j.pdf'))).toBe(false);
  });

  it('a failed download returns at once, its next try recorded; retryDelayMs counts down to 0', async () => {
    added();
    const jobs = runner({
      download: async () => {
        throw new RetryableError('network', 'ECONNREFUSED');
      },
    });
    const waiting = await jobs.prepare('j', quietControl());
    expect(waiting).toMatchObject({ state: 'downloading', nextRetryAt: clock.now() + 4 });
    expect(jobs.retryDelayMs(waiting)).toBe(4);
    expect(jobs.waitingToRetry(waiting)).toBe(true);
    clock.advance(3);
    expect(jobs.retryDelayMs(waiting)).toBe(1);
    clock.advance(1);
    expect(jobs.retryDelayMs(waiting)).toBe(0);
    expect(jobs.waitingToRetry(waiting)).toBe(false);
    clock.advance(1);
    expect(jobs.retryDelayMs(waiting)).toBe(0);
    expect(jobs.retryDelayMs({ ...waiting, nextRetryAt: undefined })).toBe(0);
    // Only a download waits so: a spooled job due later is not waiting to retry here.
    clock.set(0);
    expect(jobs.waitingToRetry({ ...waiting, state: 'spooled' })).toBe(false);
  });

  it('a cancelled job does not pause on its failed download: it is cancelled', async () => {
    added();
    let cancelled = false;
    const jobs = runner({
      download: async () => {
        cancelled = true;
        throw new RetryableError('network', 'ECONNREFUSED');
      },
    });
    const control = { ...quietControl(), cancelled: () => cancelled };
    expect(await jobs.prepare('j', control)).toMatchObject({ state: 'cancelled' });
  });

  it('fails a job whose step throws an error trying again cannot fix, with its message', async () => {
    added();
    const jobs = runner({
      download: async () => {
        throw new Error('EACCES: permission denied');
      },
    });
    expect(await jobs.prepare('j', quietControl())).toMatchObject({
      state: 'failed',
      lastError: 'EACCES: permission denied',
    });
    expect(rig.events.at(-1)).toEqual({
      kind: 'failed',
      error_code: 3011,
      message: 'EACCES: permission denied',
    });
  });

  it('a repair that could not reach the printer waits with backoff, reports it, and tries again', async () => {
    added();
    const jobs = runner();
    await jobs.prepare('j', quietControl());
    rig.ledger.move('j', 'submitting', { attempt: true });
    printer.unreachable = 2;
    const moved = await jobs.submit('j', printer, quietControl());
    expect(moved).toMatchObject({ state: 'submitted' });
    // Never found at the printer: submitted again, once.
    expect(printer.submitted).toHaveLength(1);
    expect(rig.logged('temporary failure; retrying')).toEqual([
      expect.objectContaining({ level: 'warn', job: 'j', error: 'connect ECONNREFUSED' }),
      expect.objectContaining({ level: 'warn', job: 'j', error: 'connect ECONNREFUSED' }),
    ]);
    expect(rig.events.filter((event) => event.kind === 'waiting')).toEqual([
      { kind: 'waiting', message: expect.stringContaining('printer offline') },
    ]);
  });

  it('a stop leaves a job whose step failed as it is; a permanent failure still fails it', async () => {
    added();
    const stop = new AbortController();
    const control = { ...quietControl(), stop: stop.signal };
    const jobs = runner({
      download: async () => {
        stop.abort();
        throw new Error('aborted');
      },
    });
    expect(await jobs.prepare('j', control)).toMatchObject({ state: 'offered' });
    added('k');
    const stopping = new AbortController();
    const failing = runner({
      download: async () => {
        stopping.abort();
        throw new PermanentError('internal', 'broken');
      },
    });
    expect(await failing.prepare('k', { ...quietControl(), stop: stopping.signal })).toMatchObject({
      state: 'failed',
      lastError: 'broken',
    });
  });

  it('a job cancelled while its step failed is cancelled, not failed', async () => {
    added();
    let cancelled = false;
    const jobs = runner({
      download: async () => {
        cancelled = true;
        throw new Error('EACCES: permission denied');
      },
    });
    expect(await jobs.prepare('j', { ...quietControl(), cancelled: () => cancelled })).toMatchObject({
      state: 'cancelled',
    });
  });

  it('a job the printer refused for good fails, its spool file removed', async () => {
    added();
    const jobs = runner();
    await jobs.prepare('j', quietControl());
    printer.submit = async () => {
      throw new PermanentError('document_format_not_supported', 'format not supported');
    };
    expect(await jobs.submit('j', printer, quietControl())).toMatchObject({
      state: 'failed',
      lastError: 'format not supported',
    });
    expect(existsSync(join(rig.spoolDir, 'j.pdf'))).toBe(false);
  });

  it('a submitted job cancelled whose Cancel-Job the printer refuses for good fails with the reason', async () => {
    added();
    printer.endState = { state: 'processing', reasons: [] };
    const jobs = runner();
    await jobs.prepare('j', quietControl());
    await jobs.submit('j', printer, quietControl());
    let refusals = 1;
    printer.cancel = async () => {
      if (refusals-- > 0) throw new Error('Cancel-Job: client-error-not-possible');
    };
    expect(await jobs.watch('j', printer, cancelledControl())).toMatchObject({
      state: 'failed',
      lastError: 'Cancel-Job: client-error-not-possible',
    });
  });

  it('runs all three phases and removes the spool file of a job that ended', async () => {
    added();
    await runner().run('j', printer, quietControl());
    expect(rig.ledger.get('j')).toMatchObject({ state: 'completed', spoolPath: join(rig.spoolDir, 'j.pdf') });
    expect(existsSync(join(rig.spoolDir, 'j.pdf'))).toBe(false);
    expect(rig.kinds('j')).toEqual(['downloading', 'printing', 'completed']);
  });
});
