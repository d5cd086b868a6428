/**
 * Resolves a submission that a crash (or a lost answer) interrupted, by asking the printer: a
 * printer job recorded at Create-Job, or one found by name that still waits for its document,
 * holds at most part of it unless the whole document was recorded as sent and the printer no
 * longer waits for it: it is cancelled and the job sent again. A job found by name after a Print-Job is watched as the printer has it
 * (docs/ipp.md). Never sends a job the printer may already hold whole.
 */
import type { Logger } from '../../log/logger.js';
import {
  type BackendJobState,
  isFinalJobState,
  type PrinterBackend,
} from '../../printing/printer-backend.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import type { JobOutcomes } from './job-outcomes.js';
import { type JobRunnerDeps, printerJobName } from './job-runner-types.js';

export class ReconcileStep {
  constructor(
    private readonly deps: JobRunnerDeps,
    private readonly outcomes: JobOutcomes,
  ) {}

  /** submitting -> submitted (watch it), spooled (send it again) or failed. */
  async recover(job: LedgerJob, backend: PrinterBackend, stop: AbortSignal, log: Logger): Promise<LedgerJob> {
    if (job.printerJobId) {
      const state = await backend.jobState(job.printerJobId, stop);
      // Whole document handed to the operating system, yet the printer may still wait for it:
      // the connection broke before the bytes arrived (a printer restarting, a reset).
      if (job.documentSent && !waitsForDocument(state)) {
        log.info(
          { printerJobId: job.printerJobId },
          'found the interrupted job at the printer (whole document sent); watching it',
        );
        return this.outcomes.submittedAs(job, job.printerJobId, log);
      }
      return this.cancelAndResend(job, job.printerJobId, state, backend, stop, log);
    }
    if (!backend.findJobByName) {
      return this.outcomes.fail(
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
    if (waitsForDocument(state)) {
      // Created (Create-Job) but no document arrived: nothing printed, the job only holds the printer.
      return this.cancelAndResend(job, found.printerJobId, state, backend, stop, log);
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
    return this.outcomes.submittedAs(job, found.printerJobId, log);
  }

  /** Cancels a printer job that holds at most part of the document, then queues the job again. */
  private async cancelAndResend(
    job: LedgerJob,
    printerJobId: string,
    before: BackendJobState,
    backend: PrinterBackend,
    stop: AbortSignal,
    log: Logger,
  ): Promise<LedgerJob> {
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
}

/** A printer job created but still without its document (nothing printed; it only holds the printer). */
function waitsForDocument(state: BackendJobState): boolean {
  return state.reasons.includes('job-data-insufficient') && !isFinalJobState(state.state);
}
