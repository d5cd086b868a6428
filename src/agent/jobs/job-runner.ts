/**
 * Takes one job from wherever the ledger says it is to a final state: download into memory (a
 * small document) or the spool (download-step.ts), submit with retry and backoff while the printer is busy or unreachable
 * (submit-step.ts), watch it at the printer (watch-step.ts), report events through the
 * outbox, remove the spool file at the end. `submitting` is recorded before the job goes to the
 * printer, the printer's job id as soon as the printer names it (at Create-Job, before the
 * document), whether the whole document went out, and `submitted` after the printer accepted
 * it; a restart reconciles from these (reconcile-step.ts).
 */
import { rmSync } from 'node:fs';
import { sleep } from '../../lib/abort.js';
import { backoffDelay } from '../../lib/backoff.js';
import { errorMessage, isRetryable, PermanentError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterBackend } from '../../printing/printer-backend.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import { DownloadStep, documentWait } from './download-step.js';
import { HeldDocuments } from './held-documents.js';
import { JobOutcomes } from './job-outcomes.js';
import type { JobControl, JobRunnerDeps } from './job-runner-types.js';
import { ReconcileStep } from './reconcile-step.js';
import { SubmitStep } from './submit-step.js';
import { WatchStep } from './watch-step.js';

export { busyDelay, refusedBeforePrinting } from './submit-step.js';
export {
  type JobControl,
  type JobRunnerDeps,
  printerJobName,
  RESTART_JOB_CODE,
} from './job-runner-types.js';

/**
 * Runs jobs in three phases, so the loop can pipeline them: prepare (download to the spool),
 * submit (Print-Job, serialized per printer by the caller) and watch (until the printer says the
 * job ended). Each phase takes the job from whatever state the ledger records and returns when
 * its part is done, the job is final, or `control.stop` aborts (the job stays resumable).
 */
export class JobRunner {
  private readonly outcomes: JobOutcomes;
  private readonly downloads: DownloadStep;
  private readonly submits: SubmitStep;
  private readonly reconciler: ReconcileStep;
  private readonly watcher: WatchStep;

  constructor(private readonly deps: JobRunnerDeps) {
    this.outcomes = new JobOutcomes(deps);
    const held = new HeldDocuments(deps.heldDocumentsBytes);
    this.downloads = new DownloadStep(deps, this.outcomes, held);
    this.submits = new SubmitStep(deps, this.outcomes, held);
    this.reconciler = new ReconcileStep(deps, this.outcomes);
    this.watcher = new WatchStep(deps, this.outcomes);
  }

  /**
   * All three phases in order, for one job on its own: a document that could not be fetched again
   * is waited for here (its backoff), where the loop would let the printer's other jobs go first.
   */
  async run(jobId: string, backend: PrinterBackend, control: JobControl): Promise<void> {
    let job = await this.prepare(jobId, control);
    // A wait for its document that an earlier life recorded is waited out first.
    if (!this.waitsForDocument(job)) job = await this.submit(jobId, backend, control);
    while (this.waitsForDocument(job) && !control.stop.aborted) {
      await sleep(this.retryDelayMs(job), control.wake).catch(() => {});
      job = await this.submit(jobId, backend, control);
    }
    await this.watch(jobId, backend, control);
  }

  /**
   * offered | downloading -> spooled (or cancelled / failed). A failed download does not wait
   * here: it records its next try (`nextRetryAt`) and returns with the job still downloading, so
   * the caller can let the printer's other jobs go first (see waitingToRetry, retryDelayMs).
   * After `jobs.download_attempts` failed downloads the job fails with the reason. With the
   * printer's `backend`, a `spooled` job whose document is not at hand (one that came with its
   * offer, still to be claimed; one a restart lost) gets it here too, ahead of the printer's line
   * (DownloadStep.ensureDocument, tried once): when that fails the job stays `spooled` and
   * waitsForDocument says so until a later try fetched it. A job that waits so is fetched only
   * when the caller says its wait is over (`waitOver`: the loop's timer for it fired), never when
   * it is merely queued: a restart resumes the wait its ledger row records, not the fetch.
   */
  async prepare(
    jobId: string,
    control: JobControl,
    backend?: PrinterBackend,
    waitOver = false,
  ): Promise<LedgerJob> {
    const step = async (job: LedgerJob, log: Logger) => {
      if (control.cancelled()) return this.outcomes.cancel(job, log);
      return this.downloads.run(job, control.wake, log);
    };
    const pause = (job: LedgerJob) => !control.cancelled() && this.waitingToRetry(job);
    const job = await this.drive(jobId, control, ['offered', 'downloading'], step, pause);
    if (job.state !== 'spooled' || !backend || control.cancelled()) return job;
    if (!waitOver && this.waitsForDocument(job)) return job;
    let tried = false;
    const fetch = async (spooled: LedgerJob, log: Logger) => {
      tried = true;
      const sendsBytes = backend.sendsDocumentBytes === true;
      return (await this.downloads.ensureDocument(spooled, sendsBytes, control.wake, log)).job;
    };
    return this.drive(jobId, control, ['spooled'], fetch, () => tried);
  }

  /** True while a failed download waits for its next try. */
  waitingToRetry(job: LedgerJob): boolean {
    return job.state === 'downloading' && this.retryDelayMs(job) > 0;
  }

  /**
   * True for a `spooled` job whose document (lost in a restart, or its spool file gone) the last
   * try could not fetch again: it must not go to the printer before a later try fetched it.
   */
  waitsForDocument(job: LedgerJob): boolean {
    return documentWait(job) !== undefined;
  }

  /** Why the last try to fetch a `spooled` job's document again failed, while it waits for the next. */
  documentWaitReason(jobId: string): string | undefined {
    const job = this.deps.ledger.get(jobId);
    return job && documentWait(job)?.error;
  }

  /** How many jobs wait for their next try to fetch their document again (waitsForDocument). */
  documentWaits(): number {
    return this.downloads.documentWaits();
  }

  /** Milliseconds until the job's next try of its download, or of fetching its document again (0: now). */
  retryDelayMs(job: LedgerJob): number {
    const dueAt = job.state === 'spooled' ? documentWait(job)?.dueAt : job.nextRetryAt;
    return Math.max(0, (dueAt ?? 0) - this.deps.clock.now());
  }

  /**
   * spooled | submitting -> submitted (or cancelled / failed); the caller sends one at a time per
   * printer. Returns with the job still `spooled` when its document could not be fetched again
   * (waitsForDocument), so the caller can let the printer's later jobs go first.
   */
  submit(jobId: string, backend: PrinterBackend, control: JobControl): Promise<LedgerJob> {
    let documentMissing = false;
    const pause = () => documentMissing;
    return this.drive(
      jobId,
      control,
      ['spooled', 'submitting'],
      async (job, log) => {
        // An interrupted submission is resolved first: the printer may already have the job.
        if (job.state === 'submitting') return this.reconciler.recover(job, backend, control.stop, log);
        if (control.cancelled()) return this.outcomes.cancel(job, log);
        // A small document a restart lost from memory is fetched again first.
        const document = await this.downloads.ensureDocument(
          job,
          backend.sendsDocumentBytes === true,
          control.wake,
          log,
        );
        if (!document.ready) {
          // A cancel is carried out by the next round (the job never reached the printer).
          documentMissing = !control.cancelled() && this.waitsForDocument(document.job);
          return document.job;
        }
        return this.submits.run(document.job, backend, control, log);
      },
      pause,
    );
  }

  /** submitted -> completed | failed | cancelled, reporting page progress; removes the spool file. */
  watch(jobId: string, backend: PrinterBackend, control: JobControl): Promise<LedgerJob> {
    return this.drive(jobId, control, ['submitted'], (job, log) =>
      this.watcher.run(job, backend, control, log),
    );
  }

  /**
   * Repeats `step` while the job is in one of `states` (and `pause` does not hold); retryable
   * errors wait with backoff. A job that ends here (completed, failed, cancelled) has its spool
   * file removed.
   */
  private async drive(
    jobId: string,
    control: JobControl,
    states: LedgerJob['state'][],
    step: (job: LedgerJob, log: Logger) => Promise<LedgerJob>,
    pause: (job: LedgerJob) => boolean = () => false,
  ): Promise<LedgerJob> {
    const log = this.deps.logger.child({ job: jobId });
    let job = this.outcomes.require(jobId);
    while (states.includes(job.state) && !control.stop.aborted && !pause(job)) {
      try {
        job = await step(job, log);
      } catch (error) {
        job = this.outcomes.require(jobId);
        if (control.stop.aborted && !(error instanceof PermanentError)) break;
        if (control.cancelled() && job.state !== 'submitted') continue;
        if (!isRetryable(error)) {
          job = this.outcomes.fail(job, errorMessage(error), log);
          break;
        }
        log.warn({ error: errorMessage(error) }, 'temporary failure; retrying');
        const delayMs = backoffDelay(this.outcomes.backoff(), job.attempts, this.deps.random);
        this.outcomes.reportWaiting(job.jobId, error, delayMs);
        await sleep(delayMs, control.wake).catch(() => {});
        job = this.outcomes.require(jobId);
      }
    }
    if (isFinal(job)) {
      this.outcomes.waiting.clear(jobId);
      this.outcomes.takeStateAtSubmit(jobId);
      this.downloads.forget(jobId);
      this.submits.forget(jobId);
      this.deps.inline?.take(jobId);
      if (job.spoolPath) rmSync(job.spoolPath, { force: true });
    }
    return job;
  }
}

function isFinal(job: LedgerJob): boolean {
  return job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled';
}
