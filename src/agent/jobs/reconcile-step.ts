/**
 * Resolves a submission that a crash (or a lost answer) interrupted, by asking the printer. The
 * printer job of this attempt is the one recorded at Create-Job, or else the newest job of the
 * job's name that is not an earlier attempt's. What the printer holds of the document decides
 * (judgeDocument): the whole document is watched as the printer has it and never sent again;
 * anything less is cancelled at the printer and sent again whole. The rules and the policy for
 * printers that cannot tell are in docs/agent-jobs.md, "After a crash".
 */
import { statSync } from 'node:fs';
import { sleep } from '../../lib/abort.js';
import type { Logger } from '../../log/logger.js';
import {
  type BackendJobState,
  isFinalJobState,
  type PrinterBackend,
} from '../../printing/printer-backend.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import type { JobOutcomes } from './job-outcomes.js';
import { type JobRunnerDeps, printerJobName } from './job-runner-types.js';

/** What the printer holds of an interrupted attempt's document, and why the agent thinks so. */
export interface DocumentVerdict {
  whole: boolean;
  why: string;
}

export class ReconcileStep {
  constructor(
    private readonly deps: JobRunnerDeps,
    private readonly outcomes: JobOutcomes,
  ) {}

  /** submitting -> submitted (watch it), spooled (send it again) or failed. */
  async recover(job: LedgerJob, backend: PrinterBackend, stop: AbortSignal, log: Logger): Promise<LedgerJob> {
    let printerJobId = job.printerJobId;
    if (!printerJobId) {
      if (!backend.findJobByName) {
        return this.outcomes.fail(
          job,
          'interrupted while submitting and the printer cannot be asked; restart the job',
          log,
        );
      }
      const found = await backend.findJobByName(printerJobName(job.jobId), stop);
      // An earlier attempt's job (printers keep ended jobs a while) is never this attempt's.
      if (!found || job.earlierPrinterJobs.includes(found.printerJobId)) {
        log.info('interrupted job never reached the printer; submitting again');
        return this.deps.ledger.move(job.jobId, 'spooled', { nextRetryAt: this.deps.clock.now() });
      }
      printerJobId = found.printerJobId;
    }
    let state = await backend.jobState(printerJobId, stop);
    // Not known sent and still queued or printing: only once it ends may the printer say how much
    // it holds (K octets); cancelling now could race its completion and print it twice.
    const reportsFlush = backend.reportsDocumentSent === true;
    // Judged cut on an earlier look whose Cancel-Job may not have arrived (its answer was lost).
    const givenUp = job.earlierPrinterJobs.includes(printerJobId);
    while (
      !givenUp &&
      reportsFlush &&
      !job.documentSent &&
      (state.state === 'pending' || state.state === 'processing')
    ) {
      if (waitsForDocument(state)) break;
      await sleep(this.deps.jobs.status_poll_ms, stop);
      state = await backend.jobState(printerJobId, stop);
    }
    const verdict = givenUp
      ? { whole: false, why: 'judged cut before; cancelling it again' }
      : judgeDocument(job, state, reportsFlush, spooledKOctets(job));
    if (verdict.whole) {
      log.info({ printerJobId, why: verdict.why }, 'found the interrupted job at the printer; watching it');
      return this.outcomes.submittedAs(job, printerJobId, log);
    }
    return this.cancelAndResend(job, printerJobId, state, verdict.why, backend, stop, log);
  }

  /** Cancels a printer job that holds at most part of the document, then queues the job again. */
  private async cancelAndResend(
    job: LedgerJob,
    printerJobId: string,
    before: BackendJobState,
    why: string,
    backend: PrinterBackend,
    stop: AbortSignal,
    log: Logger,
  ): Promise<LedgerJob> {
    // Judged cut: should the Cancel-Job's answer be lost, the next look must not take the job,
    // now cancelled by the agent itself, for a whole one (by the flush, or by K octets rounded up).
    this.deps.ledger.move(job.jobId, 'submitting', {
      nextRetryAt: job.nextRetryAt,
      documentFlushed: false,
      printerJobId,
      givenUpPrinterJob: printerJobId,
    });
    await backend.cancel(printerJobId, stop);
    if (before.state === 'completed') {
      // A printer that treats a cut connection as the end of the document (ippeveprinter does)
      // has already printed what arrived; the user gets the whole document on the next attempt.
      log.warn(
        { printerJobId, why },
        'the printer completed the interrupted job with only part of the document; sending it again whole',
      );
    } else {
      log.info(
        { printerJobId, printerState: before.state, why },
        'cancelled the interrupted job at the printer (document incomplete); sending it again',
      );
    }
    // Recorded, so the next attempt counts this printer job among the earlier ones.
    return this.deps.ledger.move(job.jobId, 'spooled', { nextRetryAt: this.deps.clock.now(), printerJobId });
  }
}

/**
 * Whether the printer job of an interrupted attempt holds the whole document. Pure. In order:
 * a job still waiting for its document holds none of it; the printer's answer to the document
 * (recorded as sent) says it has it; K octets the printer reports are compared with the spooled
 * document's; otherwise (a printer that cannot tell) the whole document counts as there when every
 * byte of it was with the operating system before the crash, which delivers it. A backend that
 * hands a document over in one step (no flush record: CUPS, Windows) creates its job with the
 * whole document, so a job found there is whole.
 */
export function judgeDocument(
  job: Pick<LedgerJob, 'documentSent' | 'documentFlushed'>,
  state: BackendJobState,
  reportsFlush: boolean,
  expectedKOctets: number | undefined,
): DocumentVerdict {
  if (waitsForDocument(state)) return { whole: false, why: 'the printer still waits for the document' };
  if (job.documentSent) return { whole: true, why: 'the printer answered the document' };
  if (state.kOctets !== undefined && expectedKOctets !== undefined) {
    const whole = state.kOctets >= expectedKOctets;
    return { whole, why: `the printer holds ${state.kOctets} of ${expectedKOctets} K octets` };
  }
  if (!reportsFlush) return { whole: true, why: 'the printer takes a document whole or not at all' };
  return job.documentFlushed
    ? { whole: true, why: 'every byte was with the operating system before the crash' }
    : { whole: false, why: 'the agent stopped before every byte left it' };
}

/**
 * The document's size in K octets (rounded up): its spool file's, else (a small document kept in
 * memory only, or a spool file gone) the offer's, which its SHA-256 check confirmed.
 */
function spooledKOctets(job: LedgerJob): number {
  let size = job.offer.document.size;
  if (job.spoolPath) {
    try {
      size = statSync(job.spoolPath).size;
    } catch {
      // No file: the offer's size.
    }
  }
  return Math.ceil(size / 1024);
}

/** A printer job created but still without its document (nothing printed; it only holds the printer). */
function waitsForDocument(state: BackendJobState): boolean {
  return state.reasons.includes('job-data-insufficient') && !isFinalJobState(state.state);
}
