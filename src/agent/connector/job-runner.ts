/**
 * Takes one job from wherever the ledger says it is to a final state: download to the spool,
 * submit with retry and backoff while the printer is busy or unreachable, watch it at the
 * printer, report events through the outbox, remove the spool file at the end. `submitting`
 * is recorded before the job goes to the printer, the printer's job id as soon as the printer
 * names it (at Create-Job, before the document), whether the whole document went out, and
 * `submitted` after the printer accepted it; a restart reconciles from these (see recover()).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentConfig } from '../../config/agent-schema.js';
import { sleep } from '../../lib/abort.js';
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import type { Clock } from '../../lib/clock.js';
import { errorMessage, isRetryable, PermanentError, type RetryableError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  type BackendJobState,
  isFinalJobState,
  type PrinterBackend,
} from '../../printing/printer-backend.js';
import type { JobOffer } from '../../protocol/connector-channel.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { JobLedger, LedgerJob } from '../../store/job-ledger.js';
import type { NewJobEvent } from '../../store/outbox.js';
import { ClaimRefusedError } from './claiming-download.js';
import type { ApplyTicketOverrides } from './ticket-overrides.js';
import { WaitingReporter, waitingReason } from './waiting-report.js';

/** Error code for "the job must be restarted" (spec: job status 3011). */
export const RESTART_JOB_CODE = 3011;

/** The printer job name of a cloud job. */
export function printerJobName(jobId: string): string {
  return `printrelay-${jobId}`;
}

/** What a runner needs; all owned by the caller. */
export interface JobRunnerDeps {
  ledger: JobLedger;
  emit: (jobId: string, event: NewJobEvent) => void;
  /** Downloads the document, claiming the job (ClaimRefusedError when the cloud refuses the claim). */
  download: (offer: JobOffer, target: string, signal: AbortSignal) => Promise<void>;
  /** Removes the undelivered events of a job (one the cloud refused us); returns how many. */
  discardEvents?: (jobId: string) => number;
  /** Applies the admin's capability overrides (tray names, disabled trays, papers) to a ticket. */
  adjustTicket?: ApplyTicketOverrides;
  jobs: AgentConfig['jobs'];
  spoolDir: string;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/**
 * Per-job controls: `stop` aborts when the agent stops (the job stays resumable); `wake` aborts
 * on stop or on a cancel request, ending waits and downloads early; `cancelled` says whether the
 * job was cancelled.
 */
export interface JobControl {
  stop: AbortSignal;
  wake: AbortSignal;
  cancelled: () => boolean;
}

/**
 * Runs jobs in three phases, so the loop can pipeline them: prepare (download to the spool),
 * submit (Print-Job, serialized per printer by the caller) and watch (until the printer says the
 * job ended). Each phase takes the job from whatever state the ledger records and returns when
 * its part is done, the job is final, or `control.stop` aborts (the job stays resumable).
 */
export class JobRunner {
  private readonly waiting: WaitingReporter;
  /** Consecutive downloads per job that failed without counting as an attempt (cloud away, spool full). */
  private readonly downloadWaits = new Map<string, number>();

  constructor(private readonly deps: JobRunnerDeps) {
    this.waiting = new WaitingReporter({ emit: deps.emit, clock: deps.clock });
  }

  /** All three phases in order. */
  async run(jobId: string, backend: PrinterBackend, control: JobControl): Promise<void> {
    await this.prepare(jobId, control);
    await this.submit(jobId, backend, control);
    await this.watch(jobId, backend, control);
  }

  /**
   * offered | downloading -> spooled (or cancelled / failed). A failed download does not wait
   * here: it records its next try (`nextRetryAt`) and returns with the job still downloading, so
   * the caller can let the printer's other jobs go first (see waitingToRetry, retryDelayMs).
   * After `jobs.download_attempts` failed downloads the job fails with the reason.
   */
  prepare(jobId: string, control: JobControl): Promise<LedgerJob> {
    const step = async (job: LedgerJob, log: Logger) => {
      if (control.cancelled()) return this.cancel(job, log);
      if (job.state === 'offered') {
        this.deps.emit(job.jobId, { kind: 'downloading' });
        return this.deps.ledger.move(job.jobId, 'downloading');
      }
      return this.download(job, control.wake, log);
    };
    const pause = (job: LedgerJob) => !control.cancelled() && this.waitingToRetry(job);
    return this.drive(jobId, control, ['offered', 'downloading'], step, pause);
  }

  /** True while a failed download waits for its next try. */
  waitingToRetry(job: LedgerJob): boolean {
    return job.state === 'downloading' && this.retryDelayMs(job) > 0;
  }

  /** Milliseconds until the job's next try (0: now). */
  retryDelayMs(job: LedgerJob): number {
    return Math.max(0, (job.nextRetryAt ?? 0) - this.deps.clock.now());
  }

  /** spooled | submitting -> submitted (or cancelled / failed); the caller sends one at a time per printer. */
  submit(jobId: string, backend: PrinterBackend, control: JobControl): Promise<LedgerJob> {
    const busy = { count: 0 };
    return this.drive(jobId, control, ['spooled', 'submitting'], async (job, log) => {
      // An interrupted submission is resolved first: the printer may already have the job.
      if (job.state === 'submitting') return this.recover(job, backend, control.stop, log);
      if (control.cancelled()) return this.cancel(job, log);
      return this.submitOnce(job, backend, control, busy, log);
    });
  }

  /** submitted -> completed | failed | cancelled, reporting page progress; removes the spool file. */
  watch(jobId: string, backend: PrinterBackend, control: JobControl): Promise<LedgerJob> {
    return this.drive(jobId, control, ['submitted'], (job, log) =>
      this.watchAtPrinter(job, backend, control, log),
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
    let job = this.require(jobId);
    while (states.includes(job.state) && !control.stop.aborted && !pause(job)) {
      try {
        job = await step(job, log);
      } catch (error) {
        job = this.require(jobId);
        if (control.stop.aborted && !(error instanceof PermanentError)) break;
        if (control.cancelled() && job.state !== 'submitted') continue;
        if (!isRetryable(error)) {
          job = this.fail(job, errorMessage(error), log);
          break;
        }
        log.warn({ error: errorMessage(error) }, 'temporary failure; retrying');
        const delayMs = backoffDelay(this.backoff(), job.attempts, this.deps.random);
        this.reportWaiting(job.jobId, error, delayMs);
        await sleep(delayMs, control.wake).catch(() => {});
        job = this.require(jobId);
      }
    }
    if (isFinal(job)) {
      this.waiting.clear(jobId);
      this.downloadWaits.delete(jobId);
      if (job.spoolPath) rmSync(job.spoolPath, { force: true });
    }
    return job;
  }

  private async download(job: LedgerJob, stop: AbortSignal, log: Logger): Promise<LedgerJob> {
    const target = join(
      this.deps.spoolDir,
      `${safeName(job.jobId)}.${safeName(job.offer.document.extension)}`,
    );
    try {
      await this.deps.download(job.offer, target, stop);
    } catch (error) {
      if (error instanceof ClaimRefusedError) return this.refused(job, error.message, log);
      if (!isRetryable(error) || stop.aborted) throw error;
      if (error.code === 'network' || error.code === 'spool_write')
        return this.downloadWaiting(job, error, log);
      return this.downloadFailed(job, errorMessage(error), log);
    }
    this.downloadWaits.delete(job.jobId);
    log.debug({ bytes: job.offer.document.size }, 'document spooled');
    return this.deps.ledger.move(job.jobId, 'spooled', { spoolPath: target });
  }

  /**
   * A download that failed because the cloud was unreachable or the spool folder could not be
   * written (disk full): not the document's fault, so it does not count toward
   * `jobs.download_attempts`; the job waits with backoff and the spool problem is reported.
   */
  private downloadWaiting(job: LedgerJob, error: RetryableError, log: Logger): LedgerJob {
    const waits = (this.downloadWaits.get(job.jobId) ?? 0) + 1;
    this.downloadWaits.set(job.jobId, waits);
    const delayMs = backoffDelay(this.backoff(), waits, this.deps.random);
    const message = errorMessage(error);
    log.warn({ error: message, delayMs }, 'download could not complete; waiting, not counted as an attempt');
    if (error.code === 'spool_write') this.reportWaiting(job.jobId, error, delayMs);
    return this.deps.ledger.move(job.jobId, 'downloading', {
      lastError: message,
      nextRetryAt: this.deps.clock.now() + delayMs,
    });
  }

  /** Sends a throttled `waiting` event when `error` is a printer or spool problem. */
  private reportWaiting(jobId: string, error: unknown, delayMs: number): void {
    if (!isRetryable(error)) return;
    const reason = waitingReason(error);
    if (reason) this.waiting.report(jobId, reason, delayMs);
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
  private downloadFailed(job: LedgerJob, message: string, log: Logger): LedgerJob {
    const attempts = job.attempts + 1;
    if (attempts >= this.deps.jobs.download_attempts) {
      const counted = this.deps.ledger.move(job.jobId, 'downloading', { lastError: message, attempt: true });
      return this.fail(counted, `could not fetch the document after ${attempts} attempts: ${message}`, log);
    }
    const delayMs = backoffDelay(this.backoff(), attempts, this.deps.random);
    log.warn({ error: message, attempt: attempts, delayMs }, 'download failed; will try again');
    return this.deps.ledger.move(job.jobId, 'downloading', {
      lastError: message,
      attempt: true,
      nextRetryAt: this.deps.clock.now() + delayMs,
    });
  }

  /** One Print-Job; `busy.count` counts consecutive busy answers for the retry schedule. */
  private async submitOnce(
    job: LedgerJob,
    backend: PrinterBackend,
    control: JobControl,
    busy: { count: number },
    log: Logger,
  ) {
    const { ledger, clock, jobs } = this.deps;
    if (job.nextRetryAt && job.nextRetryAt > clock.now()) {
      await sleep(job.nextRetryAt - clock.now(), control.wake).catch(() => {});
      if (control.wake.aborted) return this.require(job.jobId);
    }
    if (job.firstTryAt !== undefined && clock.now() - job.firstTryAt > jobs.give_up_after_s * 1000) {
      return this.fail(
        job,
        `gave up after ${jobs.give_up_after_s} s: ${job.lastError ?? 'printer unavailable'}`,
        log,
      );
    }
    const { ticket, warnings } = await this.ticketFor(job, log);
    ledger.move(job.jobId, 'submitting', { attempt: true });
    try {
      const submitted = await backend.submit({
        documentPath: job.spoolPath as string,
        documentFormat: job.offer.document.content_type,
        jobName: printerJobName(job.jobId),
        documentName: job.offer.document.name,
        userName: job.offer.user.email || job.offer.user.name || 'printrelay',
        ticket,
        onDocumentSent: () => this.markSent(job.jobId, log),
        onPrinterJobCreated: (printerJobId) => this.deps.ledger.recordPrinterJob(job.jobId, printerJobId),
      });
      busy.count = 0;
      const notes = [...warnings, ...(submitted.notApplied ?? [])];
      return this.submittedAs(job, submitted.printerJobId, log, notes);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const message = errorMessage(error);
      if (!refusedBeforePrinting(error)) {
        // The printer may have the job (the answer was lost): look it up by name before sending again.
        log.warn({ error: message }, 'Print-Job outcome unknown; checking the printer before retrying');
        return ledger.move(job.jobId, 'submitting', { nextRetryAt: clock.now(), lastError: message });
      }
      const delay =
        error.code === 'printer_busy'
          ? busyDelay(busy.count++, jobs.retry_max_ms)
          : Math.max(error.retryAfterMs ?? 0, backoffDelay(this.backoff(), job.attempts, this.deps.random));
      log.debug({ error: message, delayMs: delay }, 'printer busy or unreachable; will retry');
      this.reportWaiting(job.jobId, error, delay);
      return ledger.move(job.jobId, 'spooled', { nextRetryAt: clock.now() + delay, lastError: message });
    }
  }

  /** Records the whole document sent; a failure only means a crash now resends the job. */
  private markSent(jobId: string, log: Logger): void {
    try {
      this.deps.ledger.markDocumentSent(jobId);
    } catch (error) {
      log.warn({ error: errorMessage(error) }, 'could not record the document as sent');
    }
  }

  /** The job's ticket with the admin's overrides applied (unchanged when there are none). */
  private async ticketFor(job: LedgerJob, log: Logger): Promise<{ ticket: PrintTicket; warnings: string[] }> {
    if (!this.deps.adjustTicket) return { ticket: job.offer.ticket, warnings: [] };
    const { ticket, warnings } = await this.deps.adjustTicket(job.offer.printer_id, job.offer.ticket);
    for (const warning of warnings) log.warn({ warning }, 'print ticket adjusted by the printer settings');
    return { ticket, warnings };
  }

  /**
   * `notes` (options changed by the printer settings or not applied by the printer, one line each)
   * go to the cloud as the printing event's message, lines joined by a newline.
   */
  private submittedAs(job: LedgerJob, printerJobId: string, log: Logger, notes: string[] = []): LedgerJob {
    this.waiting.clear(job.jobId);
    const moved = this.deps.ledger.move(job.jobId, 'submitted', { printerJobId });
    this.deps.emit(job.jobId, {
      kind: 'printing',
      printer_job_id: printerJobId,
      ...(notes.length > 0 ? { message: notes.join('\n') } : {}),
    });
    log.info({ printerJobId }, 'submitted to the printer');
    return moved;
  }

  /**
   * Resolves a submission a crash (or a lost answer) interrupted. A printer job recorded at
   * Create-Job, or one found by name that still waits for its document, holds at most part of
   * it unless the whole document was recorded as sent: it is cancelled and the job sent again.
   * A job found by name after a Print-Job is watched as the printer has it (docs/ipp.md).
   */
  private async recover(job: LedgerJob, backend: PrinterBackend, stop: AbortSignal, log: Logger) {
    if (job.printerJobId) {
      if (job.documentSent) {
        log.info(
          { printerJobId: job.printerJobId },
          'found the interrupted job at the printer (whole document sent); watching it',
        );
        return this.submittedAs(job, job.printerJobId, log);
      }
      return this.cancelAndResend(job, job.printerJobId, backend, stop, log);
    }
    if (!backend.findJobByName) {
      return this.fail(
        job,
        'interrupted while submitting and the printer cannot be asked; restart the job',
        log,
      );
    }
    const found = await backend.findJobByName(printerJobName(job.jobId), stop);
    if (!found) {
      log.info('interrupted job never reached the printer; submitting again');
      return this.deps.ledger.move(job.jobId, 'spooled', { nextRetryAt: this.deps.clock.now() });
    }
    const state = await backend.jobState(found.printerJobId, stop);
    if (state.reasons.includes('job-data-insufficient') && !isFinalJobState(state.state)) {
      // Created (Create-Job) but no document arrived: nothing printed, the job only holds the printer.
      return this.cancelAndResend(job, found.printerJobId, backend, stop, log);
    }
    if (backend.reportsDocumentSent && !job.documentSent) {
      // After a Print-Job the crash may have cut the document short, or come in the instant after
      // its last bytes went out: the two cannot be told apart here, and sending again could print
      // it twice. The job is watched as the printer has it; the log says it may be partial.
      log.warn(
        { printerJobId: found.printerJobId },
        'the printer may hold only part of the interrupted document; watching it, not sending it again',
      );
    }
    log.info({ printerJobId: found.printerJobId }, 'found the interrupted job at the printer; watching it');
    return this.submittedAs(job, found.printerJobId, log);
  }

  /** Cancels a printer job that holds at most part of the document, then queues the job again. */
  private async cancelAndResend(
    job: LedgerJob,
    printerJobId: string,
    backend: PrinterBackend,
    stop: AbortSignal,
    log: Logger,
  ): Promise<LedgerJob> {
    const before = await backend.jobState(printerJobId, stop);
    await backend.cancel(printerJobId, stop);
    if (before.state === 'completed') {
      // A printer that treats a cut connection as the end of the document (ippeveprinter does)
      // has already printed what arrived; the user gets the whole document on the next attempt.
      log.warn(
        { printerJobId },
        'the printer completed the interrupted job with only part of the document; sending it again whole',
      );
    } else {
      log.info(
        { printerJobId, printerState: before.state },
        'cancelled the interrupted job at the printer (document incomplete); sending it again',
      );
    }
    return this.deps.ledger.move(job.jobId, 'spooled', { nextRetryAt: this.deps.clock.now() });
  }

  private async watchAtPrinter(job: LedgerJob, backend: PrinterBackend, control: JobControl, log: Logger) {
    const printerJobId = job.printerJobId as string;
    let cancelSent = false;
    let pages = -1;
    for (let poll = 0; ; poll++) {
      if (control.cancelled() && !cancelSent) {
        await backend.cancel(printerJobId, control.stop);
        cancelSent = true;
      }
      const state = await this.pollState(backend, printerJobId, control.stop, log);
      if (state && isFinalJobState(state.state)) return this.finish(job, state, log);
      if (state && (state.pagesCompleted ?? -1) > pages) {
        pages = state.pagesCompleted ?? 0;
        this.deps.emit(job.jobId, { kind: 'progress', pages_printed: pages, pages_total: state.pagesTotal });
      }
      // Printers finish most jobs quickly: check again soon, then less often.
      await sleep(Math.min(this.deps.jobs.status_poll_ms, 5 * 2 ** poll), control.stop);
    }
  }

  private async pollState(backend: PrinterBackend, id: string, stop: AbortSignal, log: Logger) {
    try {
      return await backend.jobState(id, stop);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      log.debug({ error: errorMessage(error) }, 'job state unavailable; polling again');
      return undefined;
    }
  }

  private finish(job: LedgerJob, state: BackendJobState, log: Logger): LedgerJob {
    const pages = { pages_printed: state.pagesCompleted, pages_total: state.pagesTotal };
    if (state.state === 'completed') {
      this.deps.emit(job.jobId, { kind: 'completed', ...pages });
      log.info(pages, 'job completed');
      return this.deps.ledger.move(job.jobId, 'completed');
    }
    if (state.state === 'cancelled') return this.cancel(job, log);
    return this.fail(job, `printer aborted the job (${state.reasons.join(', ') || 'no reason given'})`, log);
  }

  private cancel(job: LedgerJob, log: Logger): LedgerJob {
    this.deps.emit(job.jobId, { kind: 'cancelled' });
    log.info('job cancelled');
    return this.deps.ledger.move(job.jobId, 'cancelled');
  }

  private fail(job: LedgerJob, message: string, log: Logger): LedgerJob {
    this.deps.emit(job.jobId, { kind: 'failed', error_code: RESTART_JOB_CODE, message });
    log.warn({ error: message }, 'job failed');
    return this.deps.ledger.move(job.jobId, 'failed', { lastError: message });
  }

  private require(jobId: string): LedgerJob {
    const job = this.deps.ledger.get(jobId);
    if (!job) throw new PermanentError('not_found', `job ${jobId} not in the ledger`);
    return job;
  }

  private backoff(): BackoffPolicy {
    const { retry_initial_ms, retry_max_ms } = this.deps.jobs;
    return { initialMs: retry_initial_ms, maxMs: retry_max_ms, factor: 2, jitter: 0.5 };
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

function isFinal(job: LedgerJob): boolean {
  return job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled';
}

function safeName(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || 'job';
}
