/**
 * What a job's end brings besides its stored state: the outcome listener told inside the
 * storing transaction (job-outcomes.ts), and, once committed, the "job ended" log line and the
 * removal of a print-and-delete job's stored document. Holds nothing; no resources to clean up.
 */
import { rm } from 'node:fs/promises';
import { PrintRelayError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { JobOutcomeListener } from './job-outcomes.js';
import type { JobRecords } from './job-records.js';
import type { JobRecord } from './job-repo.js';

/** Tells a job's outcome and cleans up after it ended. */
export class JobEndings {
  constructor(
    /** The transaction the listener runs in, and the job whose file was deleted. */
    private readonly records: Pick<JobRecords, 'transaction' | 'jobs'>,
    private readonly logger: Logger,
    /** Told of every final state inside the storing transaction (the webhook publisher). */
    private readonly outcomes: JobOutcomeListener,
  ) {}

  /**
   * Tells the outcome listener inside a savepoint of the caller's transaction: a listener that
   * throws rolls back only its own writes, and the job's final state is stored all the same.
   */
  tellOutcome(job: JobRecord): void {
    try {
      this.records.transaction(() => this.outcomes.jobEnded(job));
    } catch (error) {
      this.logger.error({ job: job.id, err: error }, 'the job outcome listener failed; the job is stored');
    }
  }

  /**
   * After the final state is committed: logs the end and, for a print-and-delete job, removes its
   * stored document (a failed removal is logged; the job stays as it is).
   */
  async finished(job: JobRecord): Promise<void> {
    this.logger.info({ job: job.id, state: job.state }, 'job ended');
    if (!job.deleteAfterPrint || job.fileDeleted) return;
    try {
      await rm(job.file.path, { force: true });
      this.records.jobs.markFileDeleted(job.id);
    } catch (error) {
      this.logger.warn(
        { job: job.id, err: error instanceof PrintRelayError ? error.message : error },
        'could not delete the printed file',
      );
    }
  }
}
