/**
 * The job loop: offers arrive (WebSocket or poll), are recorded in the ledger (the claim rides on
 * the job's first event and its download), and run in one pipeline per printer, printers independent. Per printer, documents download ahead
 * (at most `prefetch` at once), Print-Jobs go out strictly one at a time and in arrival order,
 * and each submitted job is watched until it ends while the next one is already sent — the way
 * a spooler keeps a printer busy. A cancel offer cancels the job (at the printer once
 * submitted). A job whose download failed, or a resumed job whose document could not be fetched
 * again, leaves the line while it waits for its next try, tries beside the line and joins it
 * again at the end once the document is there, so one document that cannot be fetched never
 * holds up the printer's later jobs (it fails for good after `jobs.download_attempts` counted
 * failures, or at once when the cloud no longer has it). On start, unfinished ledger jobs
 * are resumed (after the spool files of ended jobs are swept): repairs first (submissions a crash interrupted, which may hold their printer), then
 * the rest, each group in arrival order. stop() waits for running jobs: a Print-Job in flight finishes, then every job
 * stops in a resumable state.
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync } from 'node:fs';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterBackend } from '../../printing/printer-backend.js';
import type { JobOffer } from '../../protocol/connector-channel.js';
import type { JobLedger } from '../../store/job-ledger.js';
import type { NewJobEvent } from '../../store/outbox.js';
import { type ServiceNotifier, startHeartbeat } from '../../service/service-notifier.js';
import type { JobControl, JobRunner } from './job-runner.js';
import { DownloadSlots } from './download-slots.js';
import { OutOfLineWaits } from './out-of-line-waits.js';
import { sweepSpool } from './spool-sweep.js';

/** What a JobLoop needs; all owned by the caller. */
export interface JobLoopDeps {
  ledger: JobLedger;
  runner: JobRunner;
  emit: (jobId: string, event: NewJobEvent) => void;
  /** The backend of a cloud printer id, or undefined when the printer is not ours. */
  backendFor: (printerId: string) => PrinterBackend | undefined;
  spoolDir: string;
  logger: Logger;
  /** Documents downloaded ahead per printer; default 4. */
  prefetch?: number;
  /** The service manager's watchdog is fed from here while the loop runs (and drains). */
  notifier?: ServiceNotifier;
}

/** One printer's pipeline: the submission chain, downloads in flight, jobs being watched. */
interface PrinterPipeline {
  submitChain: Promise<void>;
  downloads: DownloadSlots;
  active: Set<Promise<unknown>>;
  queued: number;
}

/** Queues and runs jobs; start() resumes, stop() drains. */
export class JobLoop {
  private readonly pipelines = new Map<string, PrinterPipeline>();
  private readonly cancels = new Set<string>();
  private readonly wakers = new Map<string, AbortController>();
  private readonly waits: OutOfLineWaits;
  private stopController = new AbortController();
  private running = false;
  private stopHeartbeat = () => {};

  constructor(private readonly deps: JobLoopDeps) {
    this.waits = new OutOfLineWaits({
      ledger: deps.ledger,
      runner: deps.runner,
      running: () => this.running,
      cancelled: (jobId) => this.cancels.has(jobId),
      enqueue: (printerId, jobId) => this.enqueue(printerId, jobId),
      tryDownload: (printerId, jobId) => this.tryDownload(printerId, jobId),
      left: (jobId) => this.wakers.delete(jobId),
    });
  }

  /**
   * Creates the spool directory, removes the files of jobs that ended before a crash could remove
   * them (spool-sweep.ts), and resumes every unfinished ledger job.
   */
  start(): void {
    mkdirSync(this.deps.spoolDir, { recursive: true });
    const unfinished = this.deps.ledger.unfinished();
    sweepSpool(this.deps.spoolDir, unfinished, this.deps.logger);
    this.stopController = new AbortController();
    // Every job in flight waits on this signal (downloads, retries, watching), so hundreds of
    // listeners are normal here, not a leak.
    setMaxListeners(0, this.stopController.signal);
    this.running = true;
    if (this.deps.notifier) this.stopHeartbeat = startHeartbeat(this.deps.notifier);
    for (const job of resumeOrder(unfinished)) {
      this.deps.logger.info({ job: job.jobId, state: job.state }, 'resuming job');
      this.enqueue(job.printerId, job.jobId);
    }
  }

  /**
   * Handles an offer: ignores known jobs, records new ones and queues them; returns whether the
   * offer was new. The claim rides on the job's `received` event and its download (protocol 2),
   * or goes on the channel (protocol 3): the ledger holds the job before the cloud hears of this
   * connector taking it, so a crash at any point leaves the job either offered again (never
   * claimed) or resumed from the ledger. `documentHeld`: the document came with the offer and is
   * held, checked (inline-documents.ts): the job is recorded `spooled` at once, with its
   * `received` and `downloading` events, in one commit; its claim is made before it goes to the
   * printer (JobRunner.prepare).
   */
  offer(offer: JobOffer, documentHeld = false): boolean {
    const log = this.deps.logger.child({ job: offer.job_id });
    const { ledger } = this.deps;
    try {
      if (!this.running) return false;
      // The job and its `received` event in one commit (with `downloading`, for a document at hand).
      // A job the ledger knows is not added again (add's INSERT OR IGNORE): no event, no queueing.
      const added = ledger.atomically(() => {
        if (!ledger.add(offer, documentHeld ? 'spooled' : 'offered')) return false;
        this.deps.emit(offer.job_id, { kind: 'received' });
        if (documentHeld) this.deps.emit(offer.job_id, { kind: 'downloading' });
        return true;
      });
      if (!added) return false;
    } catch (error) {
      // Nothing reached the cloud: the job stays unclaimed there and is offered again.
      log.warn({ error: errorMessage(error) }, 'recording the job failed; it will be offered again');
      return false;
    }
    log.info({ printer: offer.printer_id }, 'job received');
    this.enqueue(offer.printer_id, offer.job_id);
    return true;
  }

  /** Cancels a job: before submission it never prints; after, it is cancelled at the printer. */
  cancel(jobId: string): void {
    const job = this.deps.ledger.get(jobId);
    if (!job || job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled') return;
    this.cancels.add(jobId);
    this.deps.logger.info({ job: jobId }, 'cancel requested');
    this.wakers.get(jobId)?.abort(new Error('job cancelled'));
    this.waits.comeBack(jobId);
  }

  /**
   * Why a `spooled` job's document (lost in a restart) could not be fetched again, while it waits
   * out of line for its next try; undefined for any other job.
   */
  documentWaitReason(jobId: string): string | undefined {
    return this.waits.documentWaitReason(jobId);
  }

  /** How many `spooled` jobs wait for their next try to fetch their document again. */
  jobsWaitingForDocument(): number {
    return this.deps.runner.documentWaits();
  }

  /** Number of jobs not yet ended. */
  backlog(): number {
    let n = 0;
    for (const p of this.pipelines.values()) n += p.queued;
    return n;
  }

  /** Stops taking jobs and waits for running ones to finish or park in a resumable state. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopController.abort(new Error('agent stopping'));
    this.waits.clear();
    const pipelines = [...this.pipelines.values()];
    await Promise.all([...pipelines.flatMap((p) => [p.submitChain, ...p.active]), this.waits.settled()]);
    this.pipelines.clear();
    this.stopHeartbeat();
  }

  private enqueue(printerId: string, jobId: string): void {
    const backend = this.deps.backendFor(printerId);
    if (!backend) {
      this.deps.logger.warn(
        { job: jobId, printer: printerId },
        'job for a printer this connector does not serve',
      );
      this.failUnknownPrinter(jobId, printerId);
      return;
    }
    const pipeline = this.pipelineOf(printerId);
    const control: JobControl = {
      ...this.controlFor(jobId),
      // The printer's previous job: any of this printer's jobs still being watched.
      previousJobEnded: () =>
        pipeline.active.size > 0 ? Promise.race(pipeline.active).then(() => undefined) : undefined,
    };
    const log = this.deps.logger.child({ job: jobId });
    pipeline.queued++;
    const prepared = pipeline.downloads.run(() => this.prepare(log, jobId, control, backend));
    pipeline.submitChain = pipeline.submitChain.then(async () => {
      await prepared;
      if (this.waits.leave(printerId, jobId)) {
        pipeline.queued--;
        return;
      }
      await this.guard(log, () => this.deps.runner.submit(jobId, backend, control));
      // Its document could not be fetched again at the submission either.
      // Stryker disable next-line BlockStatement: without it the job, still `spooled`, goes to watch(), which returns it unchanged at once, and its finally takes it off the backlog the same (its waker and count of throws are unset)
      if (this.waits.leave(printerId, jobId)) {
        pipeline.queued--;
        return;
      }
      const watching = this.guard(log, () => this.deps.runner.watch(jobId, backend, control)).finally(() => {
        pipeline.active.delete(watching);
        pipeline.queued--;
        this.forget(jobId);
      });
      pipeline.active.add(watching);
    });
  }

  /** The job's prepare phase in its printer's download slots; undefined for a printer not served. */
  private tryDownload(printerId: string, jobId: string): Promise<void> | undefined {
    const backend = this.deps.backendFor(printerId);
    if (!backend) return undefined;
    const log = this.deps.logger.child({ job: jobId });
    const control = this.controlFor(jobId);
    return this.pipelineOf(printerId).downloads.run(() => this.prepare(log, jobId, control, backend, true));
  }

  /**
   * The prepare phase (download ahead), counting the runner's throws in a row (OutOfLineWaits).
   * `waitOver`: the job comes back from its wait out of line, so a document it waits for is fetched
   * (a job merely queued, one resumed by a restart included, waits out what its row records first).
   */
  private async prepare(
    log: Logger,
    jobId: string,
    control: JobControl,
    backend: PrinterBackend,
    waitOver = false,
  ): Promise<void> {
    const ok = await this.guard(log, () => this.deps.runner.prepare(jobId, control, backend, waitOver));
    this.waits.countRun(jobId, !ok);
  }

  private pipelineOf(printerId: string): PrinterPipeline {
    let pipeline = this.pipelines.get(printerId);
    if (!pipeline) {
      pipeline = {
        submitChain: Promise.resolve(),
        downloads: new DownloadSlots(this.deps.prefetch ?? 4),
        active: new Set(),
        queued: 0,
      };
      this.pipelines.set(printerId, pipeline);
    }
    return pipeline;
  }

  /** The per-job controls: stop (agent stopping), wake (stop or cancel), cancelled. */
  private controlFor(jobId: string): JobControl {
    const waker = new AbortController();
    this.wakers.set(jobId, waker);
    if (this.cancels.has(jobId)) waker.abort(new Error('job cancelled'));
    const stop = this.stopController.signal;
    return { stop, wake: AbortSignal.any([stop, waker.signal]), cancelled: () => this.cancels.has(jobId) };
  }

  private forget(jobId: string): void {
    this.wakers.delete(jobId);
    this.waits.forget(jobId);
    if (!this.cancels.has(jobId)) return;
    const state = this.deps.ledger.get(jobId)?.state;
    if (state === 'completed' || state === 'failed' || state === 'cancelled') this.cancels.delete(jobId);
  }

  /**
   * Runs one phase; a failure is logged, never thrown into the pipeline (one job never stops the
   * loop). True when the phase ended without throwing.
   */
  private async guard(log: Logger, phase: () => Promise<unknown>): Promise<boolean> {
    try {
      await phase();
      return true;
    } catch (error) {
      log.error({ error: errorMessage(error) }, 'job runner failed');
      return false;
    }
  }

  private failUnknownPrinter(jobId: string, printerId: string): void {
    const message = `printer ${printerId} is not configured at this connector`;
    this.deps.ledger.atomically(() => {
      this.deps.ledger.move(jobId, 'failed', { lastError: message });
      this.deps.emit(jobId, { kind: 'failed', error_code: 3011, message });
    });
  }
}

/**
 * The order a restart queues unfinished jobs in: interrupted submissions first (their repair may
 * free a printer that holds an empty job and answers everything else busy), then the others;
 * each group keeps the ledger's arrival order.
 */
export function resumeOrder<T extends { state: string }>(jobs: readonly T[]): T[] {
  return [...jobs.filter((j) => j.state === 'submitting'), ...jobs.filter((j) => j.state !== 'submitting')];
}
