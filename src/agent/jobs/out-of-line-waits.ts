/**
 * The jobs of a JobLoop that wait out of their printer's line (job-loop.ts): a job whose download
 * waits for its next try, or a `spooled` job whose document (lost in a restart) could not be
 * fetched again. Each holds a timer that sends it back; a cancel sends it back at once. A job
 * back from its wait tries again beside the line before it joins it: its download (or its fetch
 * again) runs in the printer's download-ahead slots, and only once the document is there does the
 * job join the line, at its end. A try that takes long (a cloud that takes the connection and does
 * not answer until the timeout) so holds none of the printer's later jobs; a try that fails sends
 * it out of line again. A cancelled job, or one whose printer is no longer served, joins at once
 * (its submission ends it). Also counts, per job, the runner's throws in a row, which lengthen the
 * wait (brokenRunDelayMs).
 */
import type { JobLedger } from '../../store/job-ledger.js';
import type { JobRunner } from './job-runner.js';

/** What OutOfLineWaits needs; all owned by the JobLoop. */
export interface OutOfLineWaitsDeps {
  ledger: JobLedger;
  runner: JobRunner;
  /** Whether the loop still runs (a job never waits, nor comes back, once it stops). */
  running: () => boolean;
  /** Whether the job was cancelled (its submission ends it, so it never waits for its document). */
  cancelled: (jobId: string) => boolean;
  /** Queues the job at the end of its printer's line. */
  enqueue: (printerId: string, jobId: string) => void;
  /**
   * Runs the job's prepare phase (download, or fetch again) in its printer's download slots;
   * undefined when the printer is no longer served.
   */
  tryDownload: (printerId: string, jobId: string) => Promise<void> | undefined;
  /** Told when a job leaves the line to wait. */
  left: (jobId: string) => void;
}

/** The waits out of line of one JobLoop, and the runner's throws in a row per job. */
export class OutOfLineWaits {
  /** Jobs waiting for their next try: the timer that sends them back. */
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; printerId: string }>();
  /** Jobs whose runner threw (a bug or a broken store, not the job's own failure): times in a row. */
  private readonly broken = new Map<string, number>();
  /** The tries beside the line in flight. */
  private readonly trying = new Set<Promise<void>>();

  constructor(private readonly deps: OutOfLineWaitsDeps) {}

  /**
   * Why a `spooled` job's document (lost in a restart) could not be fetched again, while it waits
   * out of line for its next try; undefined for any other job.
   */
  documentWaitReason(jobId: string): string | undefined {
    const job = this.deps.ledger.get(jobId);
    return job && this.deps.runner.waitsForDocument(job)
      ? this.deps.runner.documentWaitReason(jobId)
      : undefined;
  }

  /**
   * Whether the job leaves the line to wait (true: a timer sends it back). A job whose download
   * waits for its next try leaves; so does a `spooled` job whose document (lost in a restart)
   * could not be fetched again, unless it was cancelled (the submission ends it). That includes a
   * job whose next try is already due by the time the line reaches it (its wait passed while
   * earlier jobs were sent): it is sent back at once, never dropped.
   */
  leave(printerId: string, jobId: string): boolean {
    const job = this.deps.ledger.get(jobId);
    const notFetched =
      job?.state === 'offered' ||
      job?.state === 'downloading' ||
      (job !== undefined && !this.deps.cancelled(jobId) && this.deps.runner.waitsForDocument(job));
    if (!job || !this.deps.running() || !notFetched) return false;
    const timer = setTimeout(
      () => this.comeBack(jobId),
      Math.max(brokenRunDelayMs(this.broken.get(jobId) ?? 0), this.deps.runner.retryDelayMs(job)),
    );
    this.timers.set(jobId, { timer, printerId });
    this.deps.left(jobId);
    return true;
  }

  /** Sends a waiting job back at once (a cancel); nothing for a job not waiting. */
  comeBack(jobId: string): void {
    const waiting = this.timers.get(jobId);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.timers.delete(jobId);
    if (this.deps.running()) this.tryBeside(waiting.printerId, jobId);
  }

  /** Settles once every try beside the line in flight has (stop() waits for it). */
  async settled(): Promise<void> {
    await Promise.all(this.trying);
  }

  /** A job back from its wait: tries beside the line, then joins it (or waits again). */
  private tryBeside(printerId: string, jobId: string): void {
    const attempt = this.deps.cancelled(jobId) ? undefined : this.deps.tryDownload(printerId, jobId);
    if (!attempt) {
      this.deps.enqueue(printerId, jobId);
      return;
    }
    const trying: Promise<void> = attempt.then(() => {
      this.trying.delete(trying);
      if (this.deps.running() && !this.leave(printerId, jobId)) this.deps.enqueue(printerId, jobId);
    });
    this.trying.add(trying);
  }

  /** Counts a run of the runner's prepare phase: `threw` lengthens the job's next wait. */
  countRun(jobId: string, threw: boolean): void {
    if (threw) this.broken.set(jobId, (this.broken.get(jobId) ?? 0) + 1);
    else this.broken.delete(jobId);
  }

  /** Drops an ended job's count of throws. */
  forget(jobId: string): void {
    this.broken.delete(jobId);
  }

  /** Clears every timer and count (the loop stops; start() resumes the jobs from the ledger). */
  clear(): void {
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.broken.clear();
  }
}

/** Longest wait before a job whose runner keeps throwing joins its line again. */
export const BROKEN_RUN_MAX_DELAY_MS = 60_000;

/**
 * How long a job not yet fetched waits out of line before it joins its line again, after its
 * runner threw `times` times in a row: 10 ms when it did not, then 10, 20, 40 ms and so on up to
 * BROKEN_RUN_MAX_DELAY_MS, so a runner that keeps throwing (a broken store, a bug) neither spins
 * nor fills the log.
 */
export function brokenRunDelayMs(times: number): number {
  return Math.min(10 * 2 ** Math.max(0, times - 1), BROKEN_RUN_MAX_DELAY_MS);
}
