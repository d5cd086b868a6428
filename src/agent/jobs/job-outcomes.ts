/**
 * How a step of a JobRunner ends a job or moves it on, in one place for every step: submitted
 * (with the `printing` event), cancelled, failed; plus the `waiting` reports and the retry
 * backoff the steps share.
 */
import type { BackoffPolicy } from '../../lib/backoff.js';
import { isRetryable, PermanentError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { BackendJobStateName } from '../../printing/printer-backend.js';
import type { JobState, LedgerJob, MoveDetails } from '../../store/job-ledger.js';
import type { NewJobEvent } from '../../store/outbox.js';
import { type JobRunnerDeps, RESTART_JOB_CODE } from './job-runner-types.js';
import { WaitingReporter, waitingReason } from './waiting-report.js';

export class JobOutcomes {
  readonly waiting: WaitingReporter;
  /** The printer's word on a job's state in its answer to the submission, until the watch starts. */
  private readonly stateAtSubmit = new Map<string, BackendJobStateName>();

  constructor(private readonly deps: JobRunnerDeps) {
    this.waiting = new WaitingReporter({ emit: deps.emit, clock: deps.clock });
  }

  /**
   * `documentSent`: the printer answered the submission's document (recorded with this move).
   * `notes` (options changed by the printer settings or not applied by the printer, one line each)
   * go to the cloud as the printing event's message, lines joined by a newline.
   */
  submittedAs(
    job: LedgerJob,
    printerJobId: string,
    log: Logger,
    notes: string[] = [],
    stateAtSubmit?: BackendJobStateName,
    documentSent = false,
  ): LedgerJob {
    this.waiting.clear(job.jobId);
    if (stateAtSubmit) this.stateAtSubmit.set(job.jobId, stateAtSubmit);
    const moved = this.step(
      job.jobId,
      'submitted',
      { printerJobId, ...(documentSent ? { documentSent: true as const } : {}) },
      {
        kind: 'printing',
        printer_job_id: printerJobId,
        ...(notes.length > 0 ? { message: notes.join('\n') } : {}),
      },
    );
    log.info({ printerJobId }, 'submitted to the printer');
    return moved;
  }

  /**
   * Moves the job and queues its event in one ledger transaction (one commit): the ledger never
   * holds a step without its event, nor the outbox an event of a step the ledger did not take.
   */
  step(jobId: string, to: JobState, details: MoveDetails, event: NewJobEvent): LedgerJob {
    return this.deps.ledger.atomically(() => {
      const moved = this.deps.ledger.move(jobId, to, details);
      this.deps.emit(jobId, event, moved);
      return moved;
    });
  }

  /** The job's state in the printer's answer to the submission (once; undefined after a restart). */
  takeStateAtSubmit(jobId: string): BackendJobStateName | undefined {
    const state = this.stateAtSubmit.get(jobId);
    this.stateAtSubmit.delete(jobId);
    return state;
  }

  cancel(job: LedgerJob, log: Logger): LedgerJob {
    const moved = this.step(job.jobId, 'cancelled', {}, { kind: 'cancelled' });
    log.info('job cancelled');
    return moved;
  }

  fail(job: LedgerJob, message: string, log: Logger): LedgerJob {
    const moved = this.step(
      job.jobId,
      'failed',
      { lastError: message },
      { kind: 'failed', error_code: RESTART_JOB_CODE, message },
    );
    log.warn({ error: message }, 'job failed');
    return moved;
  }

  /** Sends a throttled `waiting` event when `error` is a printer or spool problem. */
  reportWaiting(jobId: string, error: unknown, delayMs: number): void {
    if (!isRetryable(error)) return;
    const reason = waitingReason(error);
    if (reason) this.waiting.report(jobId, reason, delayMs);
  }

  require(jobId: string): LedgerJob {
    const job = this.deps.ledger.get(jobId);
    if (!job) throw new PermanentError('not_found', `job ${jobId} not in the ledger`);
    return job;
  }

  backoff(): BackoffPolicy {
    const { retry_initial_ms, retry_max_ms } = this.deps.jobs;
    return { initialMs: retry_initial_ms, maxMs: retry_max_ms, factor: 2, jitter: 0.5 };
  }
}
