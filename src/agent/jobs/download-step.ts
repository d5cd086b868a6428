/**
 * The download step of a job: the document is fetched (claiming the job) into memory when it is
 * small and there is room (held-documents.ts: no spool file), else into the spool, or the job
 * records when to try again. A download the cloud never answered, answered busy (503, 429: at
 * least its Retry-After), or the spool could not take waits without counting as an attempt; after `jobs.download_attempts` counted failures the job
 * fails; a claim the cloud refused drops the job as another connector's; a document the cloud
 * refuses for good (any other 4xx: 404 no such job for this connector, 410 document deleted,
 * 403) fails the job at once with that reason, reported to the cloud once, never retried; so
 * does a document the download's check refused (document-check.ts: not of its type, or no page
 * of it selected). Before a submission, ensureDocument fetches a document again that is neither
 * in memory nor in the spool (a restart lost it), with the same rules.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeSpoolFile } from '../../client/channel-client.js';
import { HttpError } from '../../client/http-base.js';
import { backoffDelay } from '../../lib/backoff.js';
import { errorMessage, isRetryable, PermanentError, RetryableError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { LedgerJob, MoveDetails } from '../../store/job-ledger.js';
import { ClaimRefusedError } from './claiming-download.js';
import { DocumentRefusedError } from './document-check.js';
import type { HeldDocuments } from './held-documents.js';
import type { JobOutcomes } from './job-outcomes.js';
import type { JobRunnerDeps } from './job-runner-types.js';

/** Where a job's document is spooled (when it is). */
export function spoolTarget(spoolDir: string, job: LedgerJob): string {
  return join(spoolDir, `${safeName(job.jobId)}.${safeName(job.offer.document.extension)}`);
}

/**
 * A `spooled` job waiting for the next try to fetch its document again, as its ledger row records
 * it (so a restart resumes the wait: LedgerJob.refetchTries).
 */
export interface DocumentWait {
  /** When the next try is due (milliseconds since the epoch, the deps' clock). */
  dueAt: number;
  /** Why the last try failed. */
  error: string;
  /** Failed tries in a row. */
  tries: number;
}

/** The document wait a `spooled` job's ledger row records, or undefined when it waits for none. */
export function documentWait(job: LedgerJob): DocumentWait | undefined {
  if (job.state !== 'spooled' || job.refetchTries === 0) return undefined;
  return { dueAt: job.nextRetryAt ?? 0, error: job.lastError ?? '', tries: job.refetchTries };
}

/** ensureDocument's answer: the document is there (held or spooled), or the job as it now stands. */
export type DocumentReady = { ready: true; job: LedgerJob } | { ready: false; job: LedgerJob };

export class DownloadStep {
  /** Consecutive downloads per job that failed without counting as an attempt (cloud away, spool full). */
  private readonly waits = new Map<string, number>();
  private readonly writeSpool: (target: string, bytes: Buffer) => Promise<void>;

  constructor(
    private readonly deps: JobRunnerDeps,
    private readonly outcomes: JobOutcomes,
    /** Small documents kept in memory with no spool file, for the submission. */
    private readonly held: HeldDocuments,
  ) {
    this.writeSpool = deps.writeSpool ?? writeSpoolFile;
  }

  /** Forgets a job that ended. */
  forget(jobId: string): void {
    this.waits.delete(jobId);
  }

  /** How many `spooled` jobs have a document wait now (each ends once fetched, or with its job). */
  documentWaits(): number {
    return this.deps.ledger.refetchWaits();
  }

  /**
   * offered | downloading -> spooled, or downloading with its next try recorded, or cancelled /
   * failed. The move out of `offered` and its `downloading` event share the commit of the step that
   * follows the first try (spooled, or the try's failure): a crash before it leaves the job
   * `offered`, which downloads again, as `downloading` would.
   */
  async run(job: LedgerJob, stop: AbortSignal, log: Logger): Promise<LedgerJob> {
    const target = spoolTarget(this.deps.spoolDir, job);
    let spoolPath: string | undefined = target;
    try {
      const bytes = await this.deps.download(job.offer, target, stop);
      // In memory only when there is room; else written to the spool like a larger one.
      if (Buffer.isBuffer(bytes)) {
        if (this.held.keep(job.jobId, bytes)) spoolPath = undefined;
        else await this.writeSpool(target, bytes);
      }
    } catch (error) {
      if (error instanceof ClaimRefusedError) return this.refused(job, error.message, log);
      // Not what its job says (document-check.ts): sending it again cannot help.
      if (error instanceof DocumentRefusedError) return this.outcomes.fail(job, error.message, log);
      if (isRefusedForGood(error) && !stop.aborted)
        return this.outcomes.fail(job, `the cloud refused the document for good: ${error.message}`, log);
      // The cloud's certificate stopped verifying (replaced, expired): the document is not at
      // fault and the job must not fail; it waits, and the log names the URL and the fix.
      if (isUntrustedCloud(error) && !stop.aborted) return this.waiting(job, error, log);
      if (!isRetryable(error) || stop.aborted) throw error;
      if (isWaitNotCounted(error)) return this.waiting(job, error, log);
      return this.failed(job, errorMessage(error), log);
    }
    this.waits.delete(job.jobId);
    log.debug({ bytes: job.offer.document.size, inMemory: spoolPath === undefined }, 'document spooled');
    return this.moveFrom(job, 'spooled', spoolPath ? { spoolPath } : {});
  }

  /** Moves a job on from the download; out of `offered`, with the `downloading` move and event in the same commit. */
  private moveFrom(job: LedgerJob, to: 'downloading' | 'spooled', details: MoveDetails): LedgerJob {
    const { ledger } = this.deps;
    if (job.state !== 'offered') return ledger.move(job.jobId, to, details);
    return ledger.atomically(() => {
      const downloading = this.outcomes.step(job.jobId, 'downloading', to === 'downloading' ? details : {}, {
        kind: 'downloading',
      });
      return to === 'downloading' ? downloading : ledger.move(job.jobId, to, details);
    });
  }

  /**
   * Makes sure a `spooled` job's document is there for its submission: kept in memory, or in its
   * spool file (always in the file for a backend that cannot send bytes). A small document kept
   * only in memory that a restart lost, or a spool file gone missing, is fetched again from the
   * cloud (the job is this connector's already; the SHA-256 is checked again). A document that
   * came with its offer (the job was recorded `spooled` at once) is claimed and taken here through
   * the same download (inline-documents.ts: from memory once the cloud answered the claim). Not ready: the job
   * ended (the cloud refused the document for good: failed; claimed by another connector:
   * cancelled; after `jobs.download_attempts` counted failures: failed), or the try failed and
   * the job stays `spooled`, its ledger row recording the wait (documentWait: when the next try is
   * due, backoff from `jobs.retry_initial_ms`, the tries so far and why), which a restart resumes.
   * It does not wait here, so the caller can let the printer's other jobs go first.
   */
  async ensureDocument(
    job: LedgerJob,
    sendsBytes: boolean,
    wake: AbortSignal,
    log: Logger,
  ): Promise<DocumentReady> {
    const held = this.held.get(job.jobId);
    if ((job.spoolPath && existsSync(job.spoolPath)) || (held && sendsBytes)) return this.fetched(job);
    const target = spoolTarget(this.deps.spoolDir, job);
    try {
      let bytes = held;
      if (!bytes) {
        // A document that came with its offer is claimed and taken now (not fetched again).
        const inline = this.deps.inline?.has(job.jobId) === true;
        const fetched = await this.deps.download(job.offer, target, wake);
        bytes = Buffer.isBuffer(fetched) ? fetched : undefined;
        if (!inline)
          log.info(
            { bytes: job.offer.document.size, inMemory: bytes !== undefined },
            'document fetched again',
          );
        if (bytes && sendsBytes && this.held.keep(job.jobId, bytes)) return this.fetched(job);
      }
      if (bytes) await this.writeSpool(target, bytes);
      this.deps.ledger.recordSpoolFile(job.jobId, target);
      return this.fetched({ ...job, spoolPath: target });
    } catch (error) {
      return { ready: false, job: this.refetchFailed(job, error, wake, log) };
    }
  }

  private fetched(job: LedgerJob): DocumentReady {
    this.waits.delete(job.jobId);
    if (job.refetchTries === 0) return { ready: true, job };
    // Only a job that waited for its document writes here (one commit); the usual job does not.
    this.deps.ledger.clearRefetchWait(job.jobId);
    return { ready: true, job: { ...job, refetchTries: 0, refetchFailures: 0, nextRetryAt: undefined } };
  }

  /** A failed fetch of a document again: the job ends, or records when to try next (see ensureDocument). */
  private refetchFailed(job: LedgerJob, error: unknown, wake: AbortSignal, log: Logger): LedgerJob {
    if (error instanceof ClaimRefusedError) return this.refused(job, error.message, log);
    if (error instanceof DocumentRefusedError) return this.outcomes.fail(job, error.message, log);
    if (isRefusedForGood(error) && !wake.aborted)
      return this.outcomes.fail(job, `the cloud no longer has the document: ${error.message}`, log);
    const notCounted = (isUntrustedCloud(error) && !wake.aborted) || isWaitNotCounted(error);
    if (!notCounted && (!isRetryable(error) || wake.aborted)) throw error;
    const message = errorMessage(error);
    // The counts as the ledger holds them: kept across restarts, so a crash loop resumes the backoff.
    const current = this.outcomes.require(job.jobId);
    const failures = current.refetchFailures + (notCounted ? 0 : 1);
    if (failures >= this.deps.jobs.download_attempts) {
      return this.outcomes.fail(
        current,
        `could not fetch the document again after ${failures} attempts: ${message}`,
        log,
      );
    }
    const tries = current.refetchTries + 1;
    const delayMs = this.waitDelay(error, tries);
    log.warn({ error: message, delayMs, tries }, 'fetching the document again failed; will try again');
    const nextRetryAt = this.deps.clock.now() + delayMs;
    // The wait and its `waiting` report (a spool that cannot be written) in one commit.
    return this.deps.ledger.atomically(() => {
      this.outcomes.reportWaiting(job.jobId, error, delayMs);
      return this.deps.ledger.recordRefetchWait(job.jobId, {
        tries,
        failures,
        nextRetryAt,
        lastError: message,
      });
    });
  }

  /**
   * A download that failed because the cloud was unreachable or busy (503, 429), its certificate
   * no longer verified, or the spool folder could not be written (disk full): not the document's
   * fault, so it does not count toward `jobs.download_attempts`; the job waits with backoff (at
   * least the cloud's Retry-After) and the spool problem is reported.
   */
  private waiting(job: LedgerJob, error: RetryableError | PermanentError, log: Logger): LedgerJob {
    const waits = (this.waits.get(job.jobId) ?? 0) + 1;
    this.waits.set(job.jobId, waits);
    const delayMs = this.waitDelay(error, waits);
    const message = errorMessage(error);
    log.warn({ error: message, delayMs }, 'download could not complete; waiting, not counted as an attempt');
    const moved = this.moveFrom(job, 'downloading', {
      lastError: message,
      nextRetryAt: this.deps.clock.now() + delayMs,
    });
    if (error instanceof RetryableError && error.code === 'spool_write')
      this.outcomes.reportWaiting(job.jobId, error, delayMs);
    return moved;
  }

  /** The backoff of a job's `waits`-th wait, and at least the cloud's Retry-After. */
  private waitDelay(error: unknown, waits: number): number {
    const backoff = backoffDelay(this.outcomes.backoff(), waits, this.deps.random);
    return Math.max(backoff, isRetryable(error) ? (error.retryAfterMs ?? 0) : 0);
  }

  /**
   * The cloud refused this connector the job (another connector holds it, or it ended first):
   * it is not ours to print or report. Its undelivered events go (the cloud would refuse them
   * forever) and the ledger closes it as cancelled without an event.
   */
  private refused(job: LedgerJob, message: string, log: Logger): LedgerJob {
    const discarded = this.deps.discardEvents?.(job.jobId) ?? 0;
    log.info(
      { reason: message, discardedEvents: discarded },
      'job claimed by another connector; dropping it',
    );
    return this.deps.ledger.move(job.jobId, 'cancelled', { lastError: message });
  }

  /** Records a failed download and when to try again; fails the job after the last attempt. */
  private failed(job: LedgerJob, message: string, log: Logger): LedgerJob {
    const attempts = job.attempts + 1;
    if (attempts >= this.deps.jobs.download_attempts) {
      const counted = this.moveFrom(job, 'downloading', { lastError: message, attempt: true });
      return this.outcomes.fail(
        counted,
        `could not fetch the document after ${attempts} attempts: ${message}`,
        log,
      );
    }
    const delayMs = backoffDelay(this.outcomes.backoff(), attempts, this.deps.random);
    log.warn({ error: message, attempt: attempts, delayMs }, 'download failed; will try again');
    return this.moveFrom(job, 'downloading', {
      lastError: message,
      attempt: true,
      nextRetryAt: this.deps.clock.now() + delayMs,
    });
  }
}

function safeName(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || 'job';
}

/** A 4xx answer to the download other than 408 (timeout) and 429 (retryable already): retrying cannot help. */
function isRefusedForGood(error: unknown): error is HttpError {
  return error instanceof HttpError && error.status >= 400 && error.status < 500 && error.status !== 408;
}

/**
 * A failed download that waits without counting as an attempt: the cloud did not answer, the
 * spool could not take it, or the cloud said it is busy (503: too many downloads at once; 429):
 * none of them is the document's fault.
 */
function isWaitNotCounted(error: unknown): error is RetryableError {
  return (
    error instanceof RetryableError &&
    (error.code === 'network' ||
      error.code === 'spool_write' ||
      error.code === 'http_503' ||
      error.code === 'http_429')
  );
}

/** An untrusted certificate of the cloud (`tls_untrusted`, client/cloud-trust.ts). */
function isUntrustedCloud(error: unknown): error is PermanentError {
  return error instanceof PermanentError && error.code === 'tls_untrusted';
}
