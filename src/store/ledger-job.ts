/**
 * One job as the ledger holds it (LedgerJob), its state, and the row of the `jobs` table it is
 * read from: the column names and how each becomes a field (jobRowToJob).
 */
import type { JobOffer } from '../protocol/connector-channel.js';

/** The states a job moves through in the ledger. */
export type JobState =
  | 'offered'
  | 'downloading'
  | 'spooled'
  | 'submitting'
  | 'submitted'
  | 'completed'
  | 'failed'
  | 'cancelled';

/** One job in the ledger. */
export interface LedgerJob {
  jobId: string;
  printerId: string;
  offer: JobOffer;
  state: JobState;
  attempts: number;
  /** Epoch ms before which the next submit attempt should not happen. */
  nextRetryAt: number | undefined;
  lastError: string | undefined;
  printerJobId: string | undefined;
  /** The document's spool file; none for a small document kept in memory (fetched again after a restart). */
  spoolPath: string | undefined;
  /** Epoch ms of the first submit attempt (for give_up_after_s). */
  firstTryAt: number | undefined;
  /**
   * The current submit attempt's document counts as sent: every byte went to the operating system
   * and the printer answered the request carrying it with success (docs/agent-jobs.md).
   */
  documentSent: boolean;
  /** Every byte of the current attempt's document went to the operating system (answer not yet seen). */
  documentFlushed: boolean;
  /** Printer job ids of earlier submit attempts: never taken for the current attempt's job. */
  earlierPrinterJobs: string[];
  /** Arrival order (a sequence, 1 for the first job ever recorded): what a restart resumes by. */
  arrival: number;
  /**
   * A `spooled` job whose document (lost in a restart) could not be fetched again: the failed tries
   * in a row (above 0 while it waits: until `nextRetryAt`, `lastError` saying why), kept across
   * restarts (recordRefetchWait); 0 once the document is there.
   */
  refetchTries: number;
  /** Those of the refetch tries that count toward `jobs.download_attempts`. */
  refetchFailures: number;
  createdAt: number;
  updatedAt: number;
}

/** A row of the `jobs` table as SQLite returns it (migrations in agent-db.ts). */
export interface JobRow {
  job_id: string;
  printer_id: string;
  offer_json: string;
  state: JobState;
  attempts: number;
  next_retry_at: number | null;
  last_error: string | null;
  printer_job_id: string | null;
  spool_path: string | null;
  first_try_at: number | null;
  document_sent: number;
  document_flushed: number;
  earlier_printer_jobs: string;
  arrival: number;
  refetch_tries: number;
  refetch_failures: number;
  created_at: number;
  updated_at: number;
}

/** The job a row of the `jobs` table holds. */
export function jobRowToJob(row: JobRow): LedgerJob {
  return {
    jobId: row.job_id,
    printerId: row.printer_id,
    offer: JSON.parse(row.offer_json) as JobOffer,
    state: row.state,
    attempts: row.attempts,
    nextRetryAt: row.next_retry_at ?? undefined,
    lastError: row.last_error ?? undefined,
    printerJobId: row.printer_job_id ?? undefined,
    spoolPath: row.spool_path ?? undefined,
    firstTryAt: row.first_try_at ?? undefined,
    documentSent: row.document_sent === 1,
    documentFlushed: row.document_flushed === 1,
    earlierPrinterJobs: JSON.parse(row.earlier_printer_jobs) as string[],
    arrival: row.arrival,
    refetchTries: row.refetch_tries,
    refetchFailures: row.refetch_failures,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
