/**
 * The watch step of a job: polls the printer (Get-Job-Attributes for IPP) until the job ends
 * there, reporting page progress, and sends the cancel a user asked for. Ends the job completed,
 * cancelled or failed as the printer says. Polls come soon after the submission, then less
 * often (5 ms doubling up to `jobs.status_poll_ms`); when the printer's answer to the submission
 * said the job was not finished yet, the first poll waits the first interval instead of asking
 * at once (it would only hear the same).
 */
import { sleep } from '../../lib/abort.js';
import { errorMessage, isRetryable } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  type BackendJobState,
  isFinalJobState,
  type PrinterBackend,
} from '../../printing/printer-backend.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import type { JobOutcomes } from './job-outcomes.js';
import type { JobControl, JobRunnerDeps } from './job-runner-types.js';

export class WatchStep {
  constructor(
    private readonly deps: JobRunnerDeps,
    private readonly outcomes: JobOutcomes,
  ) {}

  /** submitted -> completed | failed | cancelled. */
  async run(job: LedgerJob, backend: PrinterBackend, control: JobControl, log: Logger): Promise<LedgerJob> {
    const printerJobId = job.printerJobId as string;
    let cancelSent = false;
    let pages = -1;
    const atSubmit = this.outcomes.takeStateAtSubmit(job.jobId);
    const notFinishedYet = atSubmit !== undefined && !isFinalJobState(atSubmit);
    if (notFinishedYet) await sleep(this.pollDelay(0), control.stop);
    for (let poll = notFinishedYet ? 1 : 0; ; poll++) {
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
      await sleep(this.pollDelay(poll), control.stop);
    }
  }

  /** Printers finish most jobs quickly: check again soon, then less often. */
  private pollDelay(poll: number): number {
    return Math.min(this.deps.jobs.status_poll_ms, 5 * 2 ** poll);
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
      const moved = this.outcomes.step(job.jobId, 'completed', {}, { kind: 'completed', ...pages });
      log.info(pages, 'job completed');
      return moved;
    }
    if (state.state === 'cancelled') return this.outcomes.cancel(job, log);
    return this.outcomes.fail(
      job,
      `printer aborted the job (${state.reasons.join(', ') || 'no reason given'})`,
      log,
    );
  }
}
