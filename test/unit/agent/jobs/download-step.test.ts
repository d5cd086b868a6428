/**
 * DownloadStep on its own (no printer: the download is the test's function): where a document is
 * spooled, a document kept in memory or written to the spool, each kind of failed download
 * (claim refused, document refused, refused for good, cloud away, busy or untrusted, spool full,
 * counted failures up to `jobs.download_attempts`) with its move, delay, events and log line, and
 * ensureDocument's fetch of a document a restart lost.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimRefusedError } from '../../../../src/agent/jobs/claiming-download.js';
import { DocumentRefusedError } from '../../../../src/agent/jobs/document-check.js';
import { DownloadStep, documentWait, spoolTarget } from '../../../../src/agent/jobs/download-step.js';
import { HeldDocuments } from '../../../../src/agent/jobs/held-documents.js';
import { JobOutcomes } from '../../../../src/agent/jobs/job-outcomes.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { HttpError } from '../../../../src/client/http-base.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import type { LedgerJob } from '../../../../src/store/job-ledger.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig } from '../../../support/job-step-rig.js';

const DOCUMENT = Buffer.from('%PDF-1.4 one page');
const untrusted = () =>
  new PermanentError('tls_untrusted', "GET /d/j: the server's TLS certificate is not trusted");

describe('DownloadStep', () => {
  let rig: JobStepRig;
  let clock: ManualClock;
  let held: HeldDocuments;
  let step: DownloadStep;
  /** What the next downloads do, in order (the last one stays): throw an error, or answer. */
  let answers: (Error | Buffer | undefined)[];
  let downloads: { target: string; signal: AbortSignal }[];
  let writes: string[];
  let discarded: string[];

  const build = (extra: Partial<JobRunnerDeps> = {}) => {
    const deps = rig.deps({
      random: () => 1,
      download: async (_offer, target, signal) => {
        downloads.push({ target, signal });
        const answer = answers.length > 1 ? answers.shift() : answers[0];
        if (answer instanceof Error) throw answer;
        if (answer === undefined) writeFileSync(target, DOCUMENT);
        return answer;
      },
      writeSpool: async (target, bytes) => {
        writes.push(target);
        writeFileSync(target, bytes);
      },
      discardEvents: (jobId) => {
        discarded.push(jobId);
        return 2;
      },
      ...extra,
    });
    held = new HeldDocuments(extra.heldDocumentsBytes);
    step = new DownloadStep(deps, new JobOutcomes(deps), held);
  };

  beforeEach(() => {
    clock = new ManualClock();
    rig = new JobStepRig({ logLevel: 'debug', clock, jobs: { retry_initial_ms: 100, retry_max_ms: 1000 } });
    answers = [undefined];
    downloads = [];
    writes = [];
    discarded = [];
    build();
  });
  afterEach(() => rig.close());

  const offered = (id = 'j'): LedgerJob => {
    rig.ledger.add(jobOffer(id, { size: DOCUMENT.length }));
    return rig.ledger.get(id) as LedgerJob;
  };
  const live = new AbortController().signal;
  const run = (job: LedgerJob, signal = live) => step.run(job, signal, rig.log.child({ job: job.jobId }));

  describe('spoolTarget', () => {
    it('names the file by the job id and the extension, each made safe, in the spool folder', () => {
      const job = { ...offered(), jobId: 'a/b c', offer: jobOffer('x', { extension: 'p.d-f_1' }) };
      expect(spoolTarget('/spool', job)).toBe('/spool/a_b_c.p.d-f_1');
      const long = { ...job, jobId: 'x'.repeat(130), offer: jobOffer('x', { extension: '' }) };
      expect(spoolTarget('/spool', long)).toBe(`/spool/${'x'.repeat(120)}.job`);
    });
  });

  describe('run', () => {
    it('keeps a small document in memory: spooled with no spool file, the downloading event in the same commit', async () => {
      answers = [Buffer.from(DOCUMENT)];
      const moved = await run(offered());
      expect(moved).toMatchObject({ state: 'spooled', spoolPath: undefined });
      expect(held.get('j')).toEqual(DOCUMENT);
      expect(writes).toEqual([]);
      expect(rig.kinds('j')).toEqual(['downloading']);
      expect(downloads).toEqual([{ target: join(rig.spoolDir, 'j.pdf'), signal: live }]);
      expect(rig.logged('document spooled')).toEqual([
        expect.objectContaining({ level: 'debug', bytes: DOCUMENT.length, inMemory: true }),
      ]);
    });

    it('writes a document that finds no room in memory to the spool file', async () => {
      build({ heldDocumentsBytes: DOCUMENT.length - 1 });
      answers = [Buffer.from(DOCUMENT)];
      const target = join(rig.spoolDir, 'j.pdf');
      expect(await run(offered())).toMatchObject({ state: 'spooled', spoolPath: target });
      expect(writes).toEqual([target]);
      expect(readFileSync(target)).toEqual(DOCUMENT);
      expect(rig.logged('document spooled')).toEqual([expect.objectContaining({ inMemory: false })]);
    });

    it('a document the download wrote to the spool file is spooled there; from downloading, no second event', async () => {
      const job = offered();
      rig.ledger.move('j', 'downloading');
      expect(await run({ ...job, state: 'downloading' })).toMatchObject({
        state: 'spooled',
        spoolPath: join(rig.spoolDir, 'j.pdf'),
      });
      expect(rig.kinds('j')).toEqual([]);
    });

    it('drops a job whose claim the cloud refused: its events discarded, cancelled without an event', async () => {
      answers = [new ClaimRefusedError('j', 'held by another connector')];
      const message = "job j is not this connector's to print: held by another connector";
      expect(await run(offered())).toMatchObject({ state: 'cancelled', lastError: message });
      expect(discarded).toEqual(['j']);
      expect(rig.events).toEqual([]);
      expect(rig.logged('job claimed by another connector; dropping it')).toEqual([
        expect.objectContaining({ level: 'info', reason: message, discardedEvents: 2 }),
      ]);
    });

    it('a claim refused without a way to discard events counts none', async () => {
      build({ discardEvents: undefined });
      answers = [new ClaimRefusedError('j', 'ended')];
      expect(await run(offered())).toMatchObject({ state: 'cancelled' });
      expect(rig.logged('job claimed by another connector; dropping it')).toEqual([
        expect.objectContaining({ discardedEvents: 0 }),
      ]);
    });

    it('fails a document its check refused, with the reason', async () => {
      answers = [new DocumentRefusedError('not a PDF')];
      expect(await run(offered())).toMatchObject({ state: 'failed', lastError: 'not a PDF' });
      expect(rig.events).toEqual([{ kind: 'failed', error_code: 3011, message: 'not a PDF' }]);
    });

    it.each([400, 403, 404, 410, 499])(
      'fails a document the cloud refused for good (%i) at once',
      async (status) => {
        answers = [new HttpError(status, `GET /d/j: ${status}`)];
        expect(await run(offered())).toMatchObject({
          state: 'failed',
          lastError: `the cloud refused the document for good: GET /d/j: ${status}`,
        });
        expect(downloads).toHaveLength(1);
      },
    );

    it.each([408, 500, 399])('passes on an HTTP %i, not a refusal for good', async (status) => {
      const error = new HttpError(status, `GET /d/j: ${status}`);
      answers = [error];
      await expect(run(offered())).rejects.toBe(error);
    });

    it('passes on a refusal for good or an untrusted cloud once the agent stops', async () => {
      const stopped = AbortSignal.abort();
      for (const error of [new HttpError(404, 'GET /d/j: 404'), untrusted()]) {
        answers = [error];
        await expect(run(offered(`j${downloads.length}`), stopped)).rejects.toBe(error);
      }
    });

    it('passes on a retryable failure once the agent stops, recording nothing', async () => {
      const error = new RetryableError('network', 'GET /d/j: aborted');
      answers = [error];
      await expect(run(offered(), AbortSignal.abort())).rejects.toBe(error);
      expect(rig.ledger.get('j')?.state).toBe('offered');
    });

    it.each([
      ['the cloud away', new RetryableError('network', 'GET /d/j: ECONNREFUSED')],
      ['an untrusted cloud', untrusted()],
      ['a full spool', new RetryableError('spool_write', 'cannot write the spool file: disk full')],
      ['a busy cloud (503)', new RetryableError('http_503', 'too many document downloads: at most 8 ...')],
      ['a throttling cloud (429)', new RetryableError('http_429', 'too many requests')],
    ])('waits out %s without counting an attempt, its backoff growing per wait', async (_what, error) => {
      answers = [error];
      const first = await run(offered());
      expect(first).toMatchObject({
        state: 'downloading',
        attempts: 0,
        lastError: error.message,
        nextRetryAt: clock.now() + 200,
      });
      const second = await run(first);
      expect(second).toMatchObject({ state: 'downloading', attempts: 0, nextRetryAt: clock.now() + 400 });
      expect(rig.kinds('j')).toEqual(['downloading', ...(error.code === 'spool_write' ? ['waiting'] : [])]);
      expect(rig.logged('download could not complete; waiting, not counted as an attempt')).toEqual([
        expect.objectContaining({ level: 'warn', error: error.message, delayMs: 200 }),
        expect.objectContaining({ level: 'warn', error: error.message, delayMs: 400 }),
      ]);
      // A download that then works starts the waits afresh.
      answers = [undefined];
      await run(second);
      answers = [error];
      rig.db.prepare("UPDATE jobs SET state = 'downloading' WHERE job_id = 'j'").run();
      const again = await run(rig.ledger.get('j') as LedgerJob);
      expect(again).toMatchObject({ nextRetryAt: clock.now() + 200 });
      // So does a job forgotten (it ended).
      await run(again);
      step.forget('j');
      expect(await run(rig.ledger.get('j') as LedgerJob)).toMatchObject({ nextRetryAt: clock.now() + 200 });
    });

    it("waits at least a busy cloud's Retry-After, longer than its backoff", async () => {
      answers = [new RetryableError('http_503', 'too many document downloads', { retryAfterMs: 2000 })];
      const first = await run(offered());
      expect(first).toMatchObject({ state: 'downloading', attempts: 0, nextRetryAt: clock.now() + 2000 });
      expect(rig.logged('download could not complete; waiting, not counted as an attempt')).toEqual([
        expect.objectContaining({ delayMs: 2000 }),
      ]);
    });

    it('counts any other failure as an attempt, with backoff, and fails the job at the last one', async () => {
      const error = new RetryableError('checksum_mismatch', 'document sha256 0a != 0b');
      answers = [error];
      const first = await run(offered());
      expect(first).toMatchObject({
        state: 'downloading',
        attempts: 1,
        lastError: error.message,
        nextRetryAt: clock.now() + 200,
      });
      const second = await run(first);
      expect(second).toMatchObject({ state: 'downloading', attempts: 2, nextRetryAt: clock.now() + 400 });
      expect(rig.logged('download failed; will try again')).toEqual([
        expect.objectContaining({ level: 'warn', error: error.message, attempt: 1, delayMs: 200 }),
        expect.objectContaining({ level: 'warn', error: error.message, attempt: 2, delayMs: 400 }),
      ]);
      const last = await run(second);
      const message = `could not fetch the document after 3 attempts: ${error.message}`;
      expect(last).toMatchObject({ state: 'failed', attempts: 3, lastError: message });
      expect(rig.kinds('j')).toEqual(['downloading', 'failed']);
    });

    it('a first download that is also the last attempt fails the job with its downloading event first', async () => {
      build({ jobs: { ...rig.jobs, download_attempts: 1 } });
      answers = [new RetryableError('checksum_mismatch', 'bad sha')];
      expect(await run(offered())).toMatchObject({ state: 'failed', attempts: 1 });
      expect(rig.kinds('j')).toEqual(['downloading', 'failed']);
    });
  });

  describe('ensureDocument', () => {
    /** A job spooled in an earlier life: its document neither in memory nor (by default) on disk. */
    const spooledBefore = (spoolPath?: string): LedgerJob => {
      offered();
      rig.ledger.move('j', 'downloading');
      return rig.ledger.move('j', 'spooled', spoolPath ? { spoolPath } : {});
    };
    // Backoff of a few milliseconds: a failed fetch records when its next try is due (documentWait).
    beforeEach(() => build({ jobs: { ...rig.jobs, retry_initial_ms: 2 } }));
    const ensure = (job: LedgerJob, sendsBytes = true, wake = live) =>
      step.ensureDocument(job, sendsBytes, wake, rig.log.child({ job: job.jobId }));

    it('is ready at once with the spool file there, or the bytes held for a backend that sends bytes', async () => {
      const path = join(rig.spoolDir, 'j.pdf');
      writeFileSync(path, DOCUMENT);
      const job = spooledBefore(path);
      expect(await ensure(job, false)).toEqual({ ready: true, job });
      held.keep('j', DOCUMENT);
      expect(await ensure({ ...job, spoolPath: undefined })).toEqual({
        ready: true,
        job: { ...job, spoolPath: undefined },
      });
      expect(downloads).toEqual([]);
    });

    it('writes the bytes held to the spool file for a backend that needs a file', async () => {
      const job = spooledBefore();
      held.keep('j', DOCUMENT);
      const target = join(rig.spoolDir, 'j.pdf');
      expect(await ensure(job, false)).toEqual({ ready: true, job: { ...job, spoolPath: target } });
      expect(downloads).toEqual([]);
      expect(readFileSync(target)).toEqual(DOCUMENT);
      expect(rig.ledger.get('j')?.spoolPath).toBe(target);
    });

    it('fetches a document a restart lost into memory for a backend that sends bytes', async () => {
      answers = [Buffer.from(DOCUMENT)];
      const job = spooledBefore();
      expect(await ensure(job)).toEqual({ ready: true, job });
      expect(held.get('j')).toEqual(DOCUMENT);
      expect(writes).toEqual([]);
      expect(rig.logged('document fetched again')).toEqual([
        expect.objectContaining({ level: 'info', bytes: DOCUMENT.length, inMemory: true }),
      ]);
    });

    it('fetches a lost document into its spool file for a backend that needs one, or when memory is full', async () => {
      answers = [Buffer.from(DOCUMENT)];
      const target = join(rig.spoolDir, 'j.pdf');
      const job = spooledBefore();
      expect(await ensure(job, false)).toEqual({ ready: true, job: { ...job, spoolPath: target } });
      expect(held.get('j')).toBeUndefined();
      expect(writes).toEqual([target]);
      expect(rig.ledger.get('j')?.spoolPath).toBe(target);

      build({ heldDocumentsBytes: 1 });
      writes = [];
      const other = offered('k');
      expect(await ensure(other)).toMatchObject({
        ready: true,
        job: { spoolPath: join(rig.spoolDir, 'k.pdf') },
      });
      expect(writes).toEqual([join(rig.spoolDir, 'k.pdf')]);
    });

    it('a download that wrote the file itself is recorded as the spool file, nothing written again', async () => {
      const job = spooledBefore(join(rig.spoolDir, 'gone.pdf'));
      const target = join(rig.spoolDir, 'j.pdf');
      expect(await ensure(job)).toEqual({ ready: true, job: { ...job, spoolPath: target } });
      expect(existsSync(target)).toBe(true);
      expect(writes).toEqual([]);
      expect(rig.logged('document fetched again')).toEqual([expect.objectContaining({ inMemory: false })]);
    });

    it('ends the job when the cloud refused the claim, the check refused the document, or the document is gone', async () => {
      answers = [new ClaimRefusedError('j', 'ended')];
      expect(await ensure(spooledBefore())).toMatchObject({ ready: false, job: { state: 'cancelled' } });
      for (const [id, error, why] of [
        ['k', new DocumentRefusedError('not a PDF'), 'not a PDF'],
        ['m', new HttpError(410, 'GET /d: 410'), 'the cloud no longer has the document: GET /d: 410'],
      ] as const) {
        answers = [error];
        rig.ledger.add(jobOffer(id));
        expect(await ensure(rig.ledger.get(id) as LedgerJob)).toMatchObject({
          ready: false,
          job: { state: 'failed', lastError: why },
        });
      }
    });

    it('counts failed fetches up to download_attempts, the next try due after a growing backoff', async () => {
      const error = new RetryableError('checksum_mismatch', 'sha256 0a != 0b');
      answers = [error];
      const job = spooledBefore();
      expect(documentWait(job)).toBeUndefined();
      for (const [tries, delayMs] of [
        [1, 4],
        [2, 8],
      ] as const) {
        // The wait is the ledger row's: recorded with the failure, so a restart resumes it.
        expect(await ensure(job)).toEqual({ ready: false, job: rig.ledger.get('j') });
        expect(rig.logged('fetching the document again failed; will try again').at(-1)).toMatchObject({
          level: 'warn',
          error: error.message,
          delayMs,
          tries,
        });
        expect(documentWait(rig.ledger.get('j') as LedgerJob)).toEqual({
          dueAt: clock.now() + delayMs,
          error: error.message,
          tries,
        });
        expect(rig.ledger.get('j')).toMatchObject({
          state: 'spooled',
          refetchTries: tries,
          refetchFailures: tries,
          nextRetryAt: clock.now() + delayMs,
          lastError: error.message,
          attempts: job.attempts,
        });
      }
      expect(await ensure(job)).toMatchObject({
        ready: false,
        job: {
          state: 'failed',
          lastError: `could not fetch the document again after 3 attempts: ${error.message}`,
        },
      });
    });

    it.each([
      ['the cloud away', new RetryableError('network', 'ECONNREFUSED')],
      ['a full spool', new RetryableError('spool_write', 'disk full')],
      ['an untrusted cloud', untrusted()],
    ])('does not count %s; a fetch that works starts afresh', async (_what, error) => {
      answers = [error];
      const job = spooledBefore();
      for (let i = 0; i < 4; i++)
        expect(await ensure(job)).toMatchObject({ ready: false, job: { state: 'spooled' } });
      expect(rig.ledger.get('j')).toMatchObject({ refetchTries: 4, refetchFailures: 0 });
      answers = [Buffer.from(DOCUMENT)];
      expect(await ensure(rig.ledger.get('j') as LedgerJob)).toMatchObject({
        ready: true,
        job: { state: 'spooled', refetchTries: 0, refetchFailures: 0 },
      });
      expect(documentWait(rig.ledger.get('j') as LedgerJob)).toBeUndefined();
      expect(rig.ledger.get('j')).toMatchObject({
        refetchTries: 0,
        refetchFailures: 0,
        nextRetryAt: undefined,
      });
      held.forget('j');
      answers = [error];
      await ensure(job);
      expect(rig.logged('fetching the document again failed; will try again').at(-1)).toMatchObject({
        delayMs: 4,
      });
    });

    it('passes on a failure trying again cannot fix, and any failure once woken', async () => {
      const job = spooledBefore();
      const broken = new PermanentError('internal', 'broken');
      answers = [broken];
      await expect(ensure(job)).rejects.toBe(broken);
      const late = new RetryableError('checksum_mismatch', 'aborted');
      answers = [late];
      await expect(ensure(job, true, AbortSignal.abort())).rejects.toBe(late);
      for (const error of [new HttpError(404, 'GET /d: 404'), untrusted()]) {
        answers = [error];
        await expect(ensure(job, true, AbortSignal.abort())).rejects.toBe(error);
      }
    });
  });
});
