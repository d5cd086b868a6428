/**
 * The printer's line as the simulation watches it (docs/agent-jobs.md, "One pipeline per
 * printer"): a job's turn at the head of its printer's line is its submission phase (the JobLoop
 * sends one job at a time per printer through JobRunner.submit). A job whose document could not be
 * fetched again must leave the line while it waits for its next try, so the printer's later jobs
 * go first: a second fetch of its document within one turn, after one failed, means the line
 * waited out the failure (the invariant `line-held`). The variant `line-held` (broken on purpose)
 * keeps the job at the head of the line and fetches again there after its backoff, as the agent
 * did before e1bee22 (WatchedRunner).
 */
import { documentWait } from '../../src/agent/jobs/download-step.js';
import { JobRunner } from '../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../src/agent/jobs/job-runner-types.js';
import { sleep } from '../../src/lib/abort.js';
import type { Clock } from '../../src/lib/clock.js';
import type { JobLedger } from '../../src/store/job-ledger.js';

/** What the line's watch reports, per job. */
export interface LineReport {
  /** A fetch of the job's document came after a failed one in the same turn at the head of the line. */
  held(jobId: string): void;
  /** A fetch of a `spooled` job's document (one a crash lost) failed. */
  refetchFailed(jobId: string): void;
  /** A `spooled` job's document was fetched again before the next try its ledger row recorded. */
  early(jobId: string): void;
}

/** Tracks each job's turn at the head of its printer's line and the fetches of its document. */
export class LineWatch {
  /** Jobs in their turn now, with the fetches of their document that failed in it. */
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly ledger: JobLedger,
    private readonly report: LineReport,
    /** The agent's clock: a recorded next try not yet come means the fetch is early. */
    private readonly clock: Clock,
  ) {}

  turnStarts(jobId: string): void {
    this.turns.set(jobId, 0);
  }

  turnEnds(jobId: string): void {
    this.turns.delete(jobId);
  }

  /** The runner's document fetch, watched: a fetch after a failed one in the same turn holds the line. */
  fetch(inner: JobRunnerDeps['download']): JobRunnerDeps['download'] {
    return async (offer, target, signal) => {
      const id = offer.job_id;
      if ((this.turns.get(id) ?? 0) > 0) this.report.held(id);
      const row = this.ledger.get(id);
      const again = row?.state === 'spooled';
      if (again && documentWait(row) !== undefined && (row.nextRetryAt ?? 0) > this.clock.now())
        this.report.early(id);
      try {
        return await inner(offer, target, signal);
      } catch (error) {
        const failed = this.turns.get(id);
        if (failed !== undefined) this.turns.set(id, failed + 1);
        if (again) this.report.refetchFailed(id);
        throw error;
      }
    };
  }
}

/**
 * The agent's JobRunner with its submission turns watched. `holdLine` (the variant `line-held`,
 * broken on purpose): a document a crash lost is fetched in the job's turn at the head of its
 * line (not ahead of it), and when that fails the job keeps its turn, waits out its backoff and
 * tries again, so the printer's later jobs wait behind it.
 */
export class WatchedRunner extends JobRunner {
  constructor(
    deps: JobRunnerDeps,
    private readonly line: LineWatch,
    private readonly holdLine: boolean,
    /** Broken on purpose (variant `wait-forgotten`): a job's recorded wait for its document is ignored. */
    private readonly forgetWaits = false,
  ) {
    super(deps);
  }

  /** Held line: no fetch ahead of the line, so a lost document is fetched in the job's turn. */
  override prepare(...args: Parameters<JobRunner['prepare']>): ReturnType<JobRunner['prepare']> {
    const [jobId, control, backend, waitOver] = args;
    if (this.holdLine) return super.prepare(jobId, control);
    return super.prepare(jobId, control, backend, waitOver === true || this.forgetWaits);
  }

  override async submit(...args: Parameters<JobRunner['submit']>): ReturnType<JobRunner['submit']> {
    const [jobId, , control] = args;
    this.line.turnStarts(jobId);
    try {
      let job = await super.submit(...args);
      // Held line: the backoff is waited out in the turn (a cancel ends the wait; the next submit
      // carries it out), then the document is fetched again there.
      while (this.holdLine && this.waitsForDocument(job) && !control.stop.aborted) {
        await sleep(this.retryDelayMs(job), control.wake).catch(() => {});
        job = await super.submit(...args);
      }
      return job;
    } finally {
      this.line.turnEnds(jobId);
    }
  }
}
