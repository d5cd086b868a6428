/**
 * The submit step of a job: one try at the printer. `submitting` is recorded before the job goes
 * out, the printer's job id as soon as the printer names it (at Create-Job, before the document),
 * when every byte of the document is with the operating system (flushed), and `submitted` once the
 * printer accepted the job, with the fact that it answered the document (sent: docs/agent-jobs.md)
 * and the `printing` event in the same commit. A refusal
 * that certainly printed nothing (busy, refused connection) waits and tries again; any other
 * failure leaves the outcome unknown and the job `submitting`, for reconcile-step.ts.
 */
import { sleep } from '../../lib/abort.js';
import { backoffDelay } from '../../lib/backoff.js';
import { errorMessage, isRetryable, type RetryableError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterBackend } from '../../printing/printer-backend.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import type { JobOutcomes } from './job-outcomes.js';
import { spoolTarget } from './download-step.js';
import type { HeldDocuments } from './held-documents.js';
import { type JobControl, type JobRunnerDeps, printerJobName } from './job-runner-types.js';

export class SubmitStep {
  /** Consecutive busy answers per printer (its retry schedule), cleared by an accepted job. */
  private readonly busyAnswers = new Map<string, number>();
  /** Per job refused busy: the end of the printer's previous job, taken when the refusal came. */
  private readonly previousJobs = new Map<string, Promise<void>>();
  /**
   * Printers that answered busy while one of this connector's jobs was still there: they take one
   * job at a time, so a job for them waits for the previous one to end instead of hearing busy.
   */
  private readonly oneAtATime = new Set<string>();

  constructor(
    private readonly deps: JobRunnerDeps,
    private readonly outcomes: JobOutcomes,
    /** Small documents kept in memory from their download: sent instead of reading the file. */
    private readonly held: HeldDocuments,
  ) {}

  /** Drops what the step keeps of a job that ended. */
  forget(jobId: string): void {
    this.previousJobs.delete(jobId);
    this.held.forget(jobId);
  }

  /** One Print-Job (or Create-Job + Send-Document). */
  async run(job: LedgerJob, backend: PrinterBackend, control: JobControl, log: Logger): Promise<LedgerJob> {
    const { ledger, clock, jobs } = this.deps;
    // Taken at the refusal, so a previous job that ended since still ends the wait at once.
    const previous = this.previousJobs.get(job.jobId) ?? control.previousJobEnded?.();
    this.previousJobs.delete(job.jobId);
    if (job.nextRetryAt && job.nextRetryAt > clock.now()) {
      await waitToRetry(job.nextRetryAt - clock.now(), control.wake, previous);
      if (control.wake.aborted) return this.outcomes.require(job.jobId);
    } else if (previous && this.oneAtATime.has(job.printerId)) {
      // The printer would answer busy until its previous job (ours, watched anyway) ends.
      await waitToRetry(jobs.retry_max_ms, control.wake, previous);
      if (control.wake.aborted) return this.outcomes.require(job.jobId);
    }
    if (job.firstTryAt !== undefined && clock.now() - job.firstTryAt > jobs.give_up_after_s * 1000) {
      return this.outcomes.fail(
        job,
        `gave up after ${jobs.give_up_after_s} s: ${job.lastError ?? 'printer unavailable'}`,
        log,
      );
    }
    const { ticket, warnings } = await this.ticketFor(job, log);
    ledger.move(job.jobId, 'submitting', { attempt: true });
    // The printer job Create-Job made: recorded with the flush, or with the move that follows.
    let created: string | undefined;
    // The printer's successful answer to the document: recorded with the move that follows it.
    let sent = false;
    try {
      const documentBytes = this.held.get(job.jobId);
      const submitted = await backend.submit({
        documentPath: job.spoolPath ?? spoolTarget(this.deps.spoolDir, job),
        ...(documentBytes ? { documentBytes } : {}),
        documentFormat: job.offer.document.content_type,
        jobName: printerJobName(job.jobId),
        documentName: job.offer.document.name,
        userName: job.offer.user.email || job.offer.user.name || 'printrelay',
        ticket,
        onDocumentFlushed: () => this.record(job.jobId, created, log),
        onDocumentSent: () => {
          sent = true;
        },
        // Not committed on its own: a crash before the flush leaves a printer job without its
        // document, which the repair finds by its name (Get-Jobs) and cancels.
        onPrinterJobCreated: (printerJobId) => {
          created = printerJobId;
        },
      });
      this.busyAnswers.delete(job.printerId);
      // The printer has it (a repair after a restart that must resend it fetches it again).
      this.held.forget(job.jobId);
      const notes = [...warnings, ...(submitted.notApplied ?? [])];
      return this.outcomes.submittedAs(job, submitted.printerJobId, log, notes, submitted.state, sent);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const message = errorMessage(error);
      if (!refusedBeforePrinting(error) || created !== undefined || sent) {
        // The printer may have the job (the answer was lost): look it up before sending again. The
        // agent saw this request fail, so a flush proves nothing: a printer may take the broken
        // connection as the document's end and print part of it. A job Create-Job made holds the
        // printer even when Send-Document was refused: the reconcile cancels it.
        log.warn({ error: message }, 'Print-Job outcome unknown; checking the printer before retrying');
        return ledger.move(job.jobId, 'submitting', {
          nextRetryAt: clock.now(),
          lastError: message,
          documentFlushed: false,
          ...(created !== undefined ? { printerJobId: created } : {}),
          ...(sent ? { documentSent: true as const } : {}),
        });
      }
      const delay =
        error.code === 'printer_busy'
          ? this.busyRetryDelay(job, control)
          : Math.max(
              error.retryAfterMs ?? 0,
              backoffDelay(this.outcomes.backoff(), job.attempts, this.deps.random),
            );
      log.debug({ error: message, delayMs: delay }, 'printer busy or unreachable; will retry');
      this.outcomes.reportWaiting(job.jobId, error, delay);
      return ledger.move(job.jobId, 'spooled', { nextRetryAt: clock.now() + delay, lastError: message });
    }
  }

  /**
   * How long a job the printer refused busy waits before it asks again. While one of this
   * connector's jobs is still at that printer (its previous job), the wait ends when that job
   * ends (waitToRetry) and the delay is only the ceiling, `jobs.retry_max_ms`; otherwise the
   * printer is busy with work of others and the per-printer back-off applies (busyDelay).
   */
  private busyRetryDelay(job: LedgerJob, control: JobControl): number {
    const answers = this.busyAnswers.get(job.printerId) ?? 0;
    this.busyAnswers.set(job.printerId, answers + 1);
    const previous = control.previousJobEnded?.();
    if (!previous) return busyDelay(answers, this.deps.jobs.retry_max_ms);
    this.oneAtATime.add(job.printerId);
    this.previousJobs.set(job.jobId, previous);
    return this.deps.jobs.retry_max_ms;
  }

  /**
   * Records that every byte of the document is with the operating system, with the printer job
   * Create-Job made (one commit). A failure only means a crash now resends the job.
   */
  private record(jobId: string, printerJobId: string | undefined, log: Logger): void {
    try {
      this.deps.ledger.markDocumentFlushed(jobId, printerJobId);
    } catch (error) {
      log.warn({ error: errorMessage(error), printerJobId }, 'could not record the document as flushed');
    }
  }

  /** The job's ticket with the admin's overrides applied (unchanged when there are none). */
  private async ticketFor(job: LedgerJob, log: Logger): Promise<{ ticket: PrintTicket; warnings: string[] }> {
    if (!this.deps.adjustTicket) return { ticket: job.offer.ticket, warnings: [] };
    const { ticket, warnings } = await this.deps.adjustTicket(job.offer.printer_id, job.offer.ticket);
    for (const warning of warnings) log.warn({ warning }, 'print ticket adjusted by the printer settings');
    return { ticket, warnings };
  }
}

/**
 * True when a failed Print-Job certainly did not create a job: the printer answered with an IPP
 * error status (busy, server error), or the connection was refused before anything was sent.
 * Anything else (a reset or timeout mid-way, a truncated answer) leaves the outcome unknown.
 */
export function refusedBeforePrinting(error: RetryableError): boolean {
  if (error.code === 'printer_busy' || error.code === 'printer_error') return true;
  const cause = (error.cause as { code?: string } | undefined)?.code;
  return error.code === 'printer_unreachable' && cause !== undefined && REFUSED_CODES.has(cause);
}

const REFUSED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Delay before the next try at a busy printer: 2 ms doubling per consecutive busy answer, capped. */
export function busyDelay(consecutiveBusy: number, maxMs: number): number {
  return Math.min(maxMs, 2 * 2 ** Math.min(consecutiveBusy, 20));
}

/** Waits `ms`, or less: until the job is woken (stop, cancel) or the printer's previous job ends. */
async function waitToRetry(
  ms: number,
  wake: AbortSignal,
  previous: Promise<void> | undefined,
): Promise<void> {
  const done = new AbortController();
  const waits = [sleep(ms, AbortSignal.any([wake, done.signal])).catch(() => {})];
  if (previous) waits.push(previous.catch(() => {}));
  await Promise.race(waits);
  done.abort();
}
