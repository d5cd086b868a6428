/**
 * Running /TPFM/ PrintJob processes. A release turns a held job into a real job on the target
 * printer through JobService (so the printer's connector prints it) and follows that job's
 * events: page progress, then the result — 0 completed, 10 cancelled by CancelPrintJob, 1 failed
 * (X-FMP-OSError carries the connector's error code). With Delete=1 a completed job's held copy
 * is deleted; a cancelled or failed one stays. Each process has a ProcId (an integer, unique per
 * emulator). A process ends by itself when its job ends; `stop()` ends them all.
 */
import type { Logger } from '../../../log/logger.js';
import { TpfmReturnCode } from '../../../protocol/tpfm-codes.js';
import type { HeldJobRecord } from '../held-jobs/held-job-repo.js';
import type { JobRecord } from '../../jobs/jobs-face.js';
import type { PrinterRecord } from '../../printers/printers-face.js';
import type { User } from '../../accounts/accounts-face.js';
import type { JobService } from '../../jobs/job-service.js';
import { JOB_STATUS_CODE } from '../../jobs/job-status.js';
import type { PullQueueService } from '../held-jobs/pull-queue.js';
import { TpfmFailure } from './tpfm-wire.js';

/** What a process reports. */
export type PrintUpdate =
  | { kind: 'pages'; page: number; total: number }
  | { kind: 'done'; code: number; osError?: number; osErrText?: string };

/** The final update of a process. */
export type PrintDone = Extract<PrintUpdate, { kind: 'done' }>;

/** One running release. */
export interface PrintProcess {
  procId: number;
  jobId: string;
  userId: string;
  /** Registers a listener for updates; returns the function that removes it. */
  subscribe(listener: (update: PrintUpdate) => void): () => void;
}

/** A release to start. */
export interface PrintRelease {
  held: HeldJobRecord;
  user: User;
  printer: PrinterRecord;
  copies: number | undefined;
  deleteOnSuccess: boolean;
}

interface Running extends PrintProcess {
  heldId: string;
  unwatch: () => void;
  listeners: Set<(update: PrintUpdate) => void>;
  lastPages: string;
}

/** See the file comment. */
export class TpfmPrintProcesses {
  private nextProcId = 1;
  private readonly running = new Map<number, Running>();
  /** The running process of each held job being released (at most one each). */
  private readonly byHeld = new Map<string, Running>();

  constructor(
    private readonly jobs: JobService,
    private readonly queue: PullQueueService,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts printing a held job; the job is offered to the printer's connector at once. A held job
   * is released once at a time: while a release of it runs, another gets TpfmFailure code 5.
   */
  start(release: PrintRelease): PrintProcess {
    const { held, user, printer } = release;
    const runningFor = this.byHeld.get(held.id);
    if (runningFor) {
      throw new TpfmFailure(5, `job ${held.id} is being printed by PrintJob ${runningFor.procId}`);
    }
    const ticket = { ...held.ticket, ...(release.copies === undefined ? {} : { copies: release.copies }) };
    const { jobId } = this.jobs.create({
      organizationId: user.organizationId,
      userId: user.id,
      printerId: printer.id,
      file: { ...held.file, name: held.displayName || held.fileName },
      ticket,
      deleteAfterPrint: false,
    });
    this.queue.markReleased(held, jobId);
    const listeners = new Set<(update: PrintUpdate) => void>();
    const proc: Running = {
      procId: this.nextProcId++,
      heldId: held.id,
      jobId,
      userId: user.id,
      listeners,
      lastPages: '',
      unwatch: () => undefined,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    proc.unwatch = this.jobs.watch(jobId, (job) => this.onJob(proc, job, release));
    this.running.set(proc.procId, proc);
    this.byHeld.set(held.id, proc);
    this.logger.info(
      { job: jobId, held: held.id, procId: proc.procId, printer: printer.name },
      'release started',
    );
    return proc;
  }

  /** The running process of a user, or undefined (unknown, finished or someone else's). */
  find(userId: string, procId: number): PrintProcess | undefined {
    const proc = this.running.get(procId);
    return proc?.userId === userId ? proc : undefined;
  }

  /**
   * Detaches every watcher and ends every open stream with code 1 (the jobs themselves go on),
   * so the HTTP server can close.
   */
  stop(): void {
    for (const proc of this.running.values()) {
      proc.unwatch();
      this.emit(proc, {
        kind: 'done',
        code: TpfmReturnCode.OsError,
        osErrText: 'the server is shutting down',
      });
    }
    this.running.clear();
    this.byHeld.clear();
  }

  private onJob(proc: Running, job: JobRecord, release: PrintRelease): void {
    if (job.pagesPrinted > 0 || job.pagesTotal > 0) {
      const key = `${job.pagesPrinted}/${job.pagesTotal}`;
      if (key !== proc.lastPages) {
        proc.lastPages = key;
        this.emit(proc, { kind: 'pages', page: job.pagesPrinted, total: job.pagesTotal });
      }
    }
    if (job.state !== 'completed' && job.state !== 'failed' && job.state !== 'cancelled') return;
    proc.unwatch();
    this.running.delete(proc.procId);
    this.byHeld.delete(proc.heldId);
    void this.finish(proc, job, release);
  }

  private async finish(proc: Running, job: JobRecord, release: PrintRelease): Promise<void> {
    let update: PrintDone;
    if (job.state === 'completed') {
      update = { kind: 'done', code: TpfmReturnCode.Success };
      if (release.deleteOnSuccess) update = await this.deleteHeld(release.held, update);
    } else if (job.state === 'cancelled') {
      update = { kind: 'done', code: TpfmReturnCode.Cancelled };
    } else {
      update = {
        kind: 'done',
        code: TpfmReturnCode.OsError,
        osError: job.errorCode ?? JOB_STATUS_CODE.restart,
        osErrText: job.message ?? 'the printer could not print the job',
      };
    }
    this.logger.info({ job: job.id, procId: proc.procId, code: update.code }, 'release ended');
    this.emit(proc, update);
  }

  private async deleteHeld(held: HeldJobRecord, done: PrintDone): Promise<PrintDone> {
    try {
      await this.queue.remove(held);
      return done;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const errno = (error as { errno?: unknown }).errno;
      const osError = typeof errno === 'number' ? Math.abs(errno) : 1359;
      return { kind: 'done', code: TpfmReturnCode.OsError, osError, osErrText: text };
    }
  }

  private emit(proc: Running, update: PrintUpdate): void {
    for (const listener of [...proc.listeners]) listener(update);
  }
}
