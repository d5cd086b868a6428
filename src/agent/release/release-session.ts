/**
 * One /TPFM/ session of a release station for one card: lists the card's jobs at the printer and
 * releases them according to the mode, ending on completion, card removal, idle timeout or stop.
 * Jobs are released in list order, several at once (settings.parallelReleases; one at a time in
 * while-present mode): each PrintJob is sent once the one before it was answered, i.e. its
 * printing started or failed to start, so the service starts them in list order, and their
 * progress streams are read side by side. The summary and the swipe report list the jobs in list
 * order whatever order they ended in. Owned by ReleaseStation; run() always resolves with a
 * summary (errors are shown and logged).
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { maskCardNumber, type Redactor } from '../../log/redaction.js';
import type { TpfmPrintResult, TpfmProgressEvent } from '../../client/tpfm-print-run.js';
import type { JobListOptions, PrintJobOptions, TpfmJobList } from '../../client/tpfm-client.js';
import { tpfmErrorText, TpfmReturnCode } from '../../protocol/tpfm-codes.js';
import { jobTitle, type TpfmJob } from '../../protocol/tpfm-job-list.js';
import type { ReleaseStationSettings } from './release-settings.js';
import type { ReleaseUi } from './release-ui.js';
import { releaseInOrder } from './ordered-releases.js';

/** A running print as the station needs it (TpfmClient's PrintRun fits). */
export interface PrintRunLike extends AsyncIterable<TpfmProgressEvent> {
  readonly procId: number | undefined;
  result(): Promise<TpfmPrintResult>;
  abort(): void;
}

/** The /TPFM/ commands a station uses (TpfmClient fits). */
export interface ReleaseClient {
  getJobList(user: string, options?: JobListOptions): Promise<TpfmJobList>;
  printJob(user: string, options: PrintJobOptions): Promise<PrintRunLike>;
  cancelPrintJob(user: string, procId: number): Promise<void>;
  deleteJob(user: string, job: string): Promise<void>;
}

/** How one released job ended, recorded in list order once the lot has ended. */
interface Outcome {
  list: 'printed' | 'failed' | 'cancelled';
  fileName: string;
  line: string;
}

/** Why a session ended. */
export type SessionEnd = 'done' | 'no-jobs' | 'removed' | 'idle' | 'stopped' | 'error';

/** What a session did (job file names). */
export interface SessionSummary {
  reason: SessionEnd;
  printed: string[];
  deleted: string[];
  failed: string[];
  cancelled: string[];
}

/** Where released jobs are reported, so copy accounting does not count their pages. */
export interface ReleaseCopies {
  releaseStarted(): void;
  /** The job ended having printed `pages` (0 when it printed nothing). */
  releaseEnded(pages: number): void;
}

interface SessionDeps {
  settings: ReleaseStationSettings;
  client: ReleaseClient;
  clock: Clock;
  ui: ReleaseUi;
  logger: Logger;
  redactor: Redactor;
  card: string;
  copies?: ReleaseCopies;
}

/** See the file comment. */
export class ReleaseSession {
  private readonly controller = new AbortController();
  private lastActivity: number;
  private reason: SessionEnd | undefined;
  /** What the session did, one line each, for the one who swiped (SwipeReply). */
  readonly report: string[] = [];
  private readonly summary: SessionSummary = {
    reason: 'done',
    printed: [],
    deleted: [],
    failed: [],
    cancelled: [],
  };

  constructor(private readonly deps: SessionDeps) {
    this.lastActivity = deps.clock.now();
  }

  /** Marks activity: the idle deadline moves. */
  touch(): void {
    this.lastActivity = this.deps.clock.now();
  }

  /** The card left the field: in while-present mode the session ends and cancels its print. */
  cardRemoved(): void {
    if (this.deps.settings.mode === 'while-present') this.end('removed');
  }

  /** Ends the session early for a reason. */
  end(reason: SessionEnd): void {
    if (this.controller.signal.aborted) return;
    this.reason = reason;
    this.controller.abort(new Error(`session ended: ${reason}`));
  }

  /** Runs the session to its end. */
  async run(): Promise<SessionSummary> {
    const { logger, settings, ui } = this.deps;
    const ticker = setInterval(() => this.checkIdle(), settings.idleCheckMs ?? 250);
    logger.info(
      { cardMasked: maskCardNumber(this.deps.card), mode: settings.mode },
      'release session started',
    );
    try {
      await this.release();
    } catch (error) {
      if (!this.controller.signal.aborted) {
        this.reason = 'error';
        const message = this.deps.redactor.scrubString(errorMessage(error));
        logger.warn({ reason: message }, 'release session failed');
        const code = (error as { code?: string }).code;
        ui.message('error', code === 'tpfm_unauthorized' ? 'Card not accepted' : message);
        const released = this.report.some((line) => line.startsWith('released '));
        this.report.push(swipeFailure(code, message, released));
      }
    } finally {
      clearInterval(ticker);
    }
    this.summary.reason = this.reason ?? this.summary.reason;
    if (this.summary.reason === 'idle') ui.message('info', 'Session ended after inactivity');
    logger.info({ ...this.summary }, 'release session ended');
    return this.summary;
  }

  private checkIdle(): void {
    if (this.deps.clock.now() - this.lastActivity >= this.deps.settings.idleTimeoutMs) this.end('idle');
  }

  private async release(): Promise<void> {
    const { client, settings, ui, card } = this.deps;
    const list = await client.getJobList(card, { printer: settings.printer });
    this.touch();
    if (list.jobs.length === 0) {
      this.reason = 'no-jobs';
      ui.message('info', 'No jobs waiting');
      this.report.push('nothing to release: no jobs are waiting for this card');
      return;
    }
    let jobs = list.jobs;
    if (settings.mode === 'choose') {
      if (list.visible) jobs = await this.choose(list.jobs);
      else ui.message('info', 'Job selection is not offered for this printer; releasing all jobs');
    }
    const window = settings.mode === 'while-present' ? 1 : Math.max(1, settings.parallelReleases ?? 1);
    // Each running print listens on the session's signal, and so does its request.
    setMaxListeners(10 + 2 * window, this.controller.signal);
    await this.releaseAll(jobs, window);
  }

  /**
   * Releases `jobs` in order with at most `window` PrintJobs running (ordered-releases.ts); the
   * outcomes go to the summary and report in list order; a job that failed outright is thrown.
   */
  private async releaseAll(jobs: TpfmJob[], window: number): Promise<void> {
    const stopped = () => this.controller.signal.aborted;
    const { results, failure } = await releaseInOrder(
      jobs,
      window,
      (job, answered) => this.print(job, answered),
      stopped,
    );
    for (const outcome of results) {
      if (!outcome) continue;
      this.summary[outcome.list].push(outcome.fileName);
      this.report.push(outcome.line);
    }
    if (failure) throw failure.error;
  }

  private async choose(jobs: TpfmJob[]): Promise<TpfmJob[]> {
    const choice = await this.deps.ui.choose(jobs, { allowDelete: true, signal: this.controller.signal });
    this.touch();
    for (const job of choice.delete) {
      await this.deps.client.deleteJob(this.deps.card, job.fileName);
      this.summary.deleted.push(job.fileName);
      this.report.push(`deleted ${describeJob(job)}`);
      this.deps.ui.message('info', `Deleted ${jobTitle(job)}`);
    }
    return choice.print;
  }

  /**
   * Releases one job; `answered` is called once its PrintJob was answered. Copy accounting hears
   * of it from start to end, with its printed pages.
   */
  private async print(job: TpfmJob, answered: () => void): Promise<Outcome> {
    const { copies } = this.deps;
    copies?.releaseStarted();
    const printed = { pages: 0 };
    try {
      return await this.printTracked(job, printed, answered);
    } finally {
      copies?.releaseEnded(printed.pages);
    }
  }

  private async printTracked(
    job: TpfmJob,
    printed: { pages: number },
    answered: () => void,
  ): Promise<Outcome> {
    const { client, settings, ui, card } = this.deps;
    const signal = this.controller.signal;
    ui.message('info', `Releasing ${jobTitle(job)}`);
    const run = await client.printJob(card, {
      job: job.fileName,
      printer: settings.printer,
      progress: true,
      signal,
    });
    answered();
    this.touch();
    let cancelling: Promise<void> | undefined;
    const onAbort = () => {
      cancelling = this.cancel(run);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const event of run) {
        this.touch();
        if (event.kind === 'pages') printed.pages = Math.max(printed.pages, event.page);
        ui.progress(job, event);
      }
      return this.record(job, await run.result(), printed.pages);
    } catch (error) {
      if (!signal.aborted) throw error;
      return { list: 'cancelled', fileName: job.fileName, line: `cancelled ${describeJob(job)}` };
    } finally {
      signal.removeEventListener('abort', onAbort);
      // The session is over only once the service has been told to cancel.
      await cancelling;
    }
  }

  private async cancel(run: PrintRunLike): Promise<void> {
    const { client, card, logger } = this.deps;
    try {
      if (run.procId !== undefined) await client.cancelPrintJob(card, run.procId);
    } catch (error) {
      logger.warn(
        { reason: this.deps.redactor.scrubString(errorMessage(error)) },
        'cancelling the print failed',
      );
    } finally {
      run.abort();
    }
  }

  /** Tells the user how a job ended; returns the outcome for the summary. */
  private record(job: TpfmJob, result: TpfmPrintResult, pages: number): Outcome {
    const { ui, settings } = this.deps;
    const { fileName } = job;
    if (result.code === TpfmReturnCode.Success) {
      ui.message('info', `Printed ${jobTitle(job)}`);
      return { list: 'printed', fileName, line: `released ${describeJob(job)}: ${pages} page(s)` };
    }
    if (result.code === TpfmReturnCode.Cancelled) {
      ui.message('info', `Cancelled ${jobTitle(job)}`);
      return { list: 'cancelled', fileName, line: `cancelled ${describeJob(job)}` };
    }
    const text = result.errText || tpfmErrorText(result.code, settings.lang);
    ui.message('error', `${jobTitle(job)} failed: ${text}`);
    return { list: 'failed', fileName, line: `failed ${describeJob(job)}: ${text}` };
  }
}

/** `"<title>" (job <id>)` for the swipe report. */
function describeJob(job: TpfmJob): string {
  return `"${jobTitle(job)}" (job ${job.jobId})`;
}

/**
 * The swipe report line of a session that failed; `released`: jobs were released before the
 * failure (their lines come first), so the line speaks of the rest. Pure.
 */
function swipeFailure(code: string | undefined, message: string, released = false): string {
  if (code === 'tpfm_unauthorized')
    return 'card not accepted: the service refused this card; nothing released';
  if (code === 'card_not_registered') return `card unknown, nothing released: ${message}`;
  return released ? `error, the rest not released: ${message}` : `error, nothing released: ${message}`;
}
