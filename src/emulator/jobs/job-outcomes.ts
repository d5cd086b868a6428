/**
 * The hook through which other parts of the emulator learn that a job ended. JobService calls
 * it inside the transaction that stores the final state (completed, failed or cancelled), so a
 * listener that records something in the same database (the webhook queue) commits or rolls
 * back together with the job. A listener must only store and return: it runs on the print
 * path, so anything slow (sending, waiting) happens later, elsewhere.
 */
import type { JobRecord } from './job-repo.js';

/** Told of every job that reached a final state. */
export interface JobOutcomeListener {
  /** `job` as stored, in its final state; called once per job. */
  jobEnded(job: JobRecord): void;
}

/** A listener that ignores every outcome. */
export const ignoreJobOutcomes: JobOutcomeListener = { jobEnded: () => undefined };
