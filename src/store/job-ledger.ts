/**
 * The job ledger: every job the connector accepted and the state it reached, so a crash at any
 * point resumes without losing the job or printing it twice. States and allowed moves:
 *
 *   offered -> downloading -> spooled -> submitting -> submitted -> completed | failed | cancelled
 *   (a job whose document came with its offer is added `spooled`)
 *   submitting -> spooled (the printer was busy: retried later)
 *   submitting -> submitting (Print-Job's outcome unknown: the job is looked up at the printer)
 *   any non-final state -> failed | cancelled
 */
import type { Clock } from '../lib/clock.js';
import { PrintRelayError } from '../lib/errors.js';
import type { JobOffer } from '../protocol/connector-channel.js';
import type { AgentDatabase } from './agent-db.js';
import { type TransactionRunner, transactionRunner } from './transaction-runner.js';

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

const FINAL: ReadonlySet<JobState> = new Set(['completed', 'failed', 'cancelled']);

const MOVES: Record<JobState, readonly JobState[]> = {
  offered: ['downloading'],
  downloading: ['downloading', 'spooled'],
  spooled: ['submitting'],
  submitting: ['submitted', 'spooled', 'submitting'],
  submitted: ['completed'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** True for states after which nothing more happens to the job. */
export function isFinalState(state: JobState): boolean {
  return FINAL.has(state);
}

/** Whether the ledger allows moving from `from` to `to`. */
export function canMove(from: JobState, to: JobState): boolean {
  if (isFinalState(from)) return false;
  if (to === 'failed' || to === 'cancelled') return true;
  return MOVES[from].includes(to);
}

/** A move the state machine does not allow. */
export class LedgerTransitionError extends PrintRelayError {
  constructor(jobId: string, from: JobState, to: JobState) {
    super('invalid_transition', `job ${jobId}: cannot move from ${from} to ${to}`);
  }
}

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

/** Extra facts recorded with a move. */
export interface MoveDetails {
  lastError?: string;
  printerJobId?: string;
  spoolPath?: string;
  nextRetryAt?: number;
  /** Count this move as a submit attempt. */
  attempt?: boolean;
  /**
   * false: the current attempt's flush record proves nothing any more (the agent saw the request
   * carrying the document fail, or judged the printer's copy cut); recovery no longer trusts it.
   */
  documentFlushed?: false;
  /** A printer job of the current attempt given up (judged cut): never taken for a whole one again. */
  givenUpPrinterJob?: string;
  /**
   * true: the printer answered the request carrying the current attempt's document with success
   * (recorded with the move that follows the answer, docs/agent-jobs.md).
   */
  documentSent?: true;
}

/** A failed try to fetch a `spooled` job's document again, as recordRefetchWait records it. */
export interface RefetchWait {
  /** Failed tries in a row (the backoff step). */
  tries: number;
  /** Those that count toward `jobs.download_attempts`. */
  failures: number;
  /** When the next try is due (epoch ms, the ledger's clock). */
  nextRetryAt: number;
  lastError: string;
}

interface JobRow {
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

/** Reads and moves jobs; the database is owned by the caller. */
export class JobLedger {
  private readonly inTransaction: TransactionRunner;

  constructor(
    private readonly db: AgentDatabase,
    private readonly clock: Clock,
  ) {
    this.inTransaction = transactionRunner(db);
  }

  /**
   * Runs `work` in one transaction of the ledger's database and returns its result: the moves it
   * makes and the outbox rows it adds (the outbox shares the database) commit together, in one
   * commit, or not at all when it throws. A job step and its events are recorded this way.
   */
  atomically<T>(work: () => T): T {
    return this.inTransaction(work);
  }

  /**
   * Records a newly offered job; returns false when the ledger already has it. `spooled`: its
   * document came with the offer and is checked, in memory (an inline document), so the job starts
   * there (the only way into `spooled` besides a move from `downloading`).
   */
  add(offer: JobOffer, state: 'offered' | 'spooled' = 'offered'): boolean {
    const now = this.clock.now();
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO jobs (job_id, printer_id, offer_json, state, arrival, created_at, updated_at)
         VALUES (?, ?, ?, ?, (SELECT IFNULL(MAX(arrival), 0) + 1 FROM jobs), ?, ?)`,
      )
      .run(offer.job_id, offer.printer_id, JSON.stringify(offer), state, now, now);
    return result.changes === 1;
  }

  /** The job, or undefined. */
  get(jobId: string): LedgerJob | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE job_id = ?').get(jobId) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  /** Moves a job to `to`, recording details; throws LedgerTransitionError for a forbidden move. */
  move(jobId: string, to: JobState, details: MoveDetails = {}): LedgerJob {
    return this.inTransaction(() => {
      const job = this.get(jobId);
      if (!job) throw new PrintRelayError('not_found', `job ${jobId} not in the ledger`);
      if (!canMove(job.state, to)) throw new LedgerTransitionError(jobId, job.state, to);
      const now = this.clock.now();
      // The row after the update, built here instead of read back (a move is on every job's path).
      const moved: LedgerJob = {
        ...job,
        state: to,
        attempts: job.attempts + (details.attempt ? 1 : 0),
        nextRetryAt: details.nextRetryAt,
        lastError: details.lastError ?? job.lastError,
        // A new attempt has no printer job yet (unless the move names one).
        printerJobId: details.printerJobId ?? (details.attempt ? undefined : job.printerJobId),
        spoolPath: details.spoolPath ?? job.spoolPath,
        firstTryAt: job.firstTryAt ?? (details.attempt ? now : undefined),
        // A new attempt has sent nothing yet.
        documentSent: details.attempt ? false : (details.documentSent ?? job.documentSent),
        // A document the printer answered was flushed first.
        documentFlushed: details.attempt
          ? false
          : (details.documentFlushed ?? (details.documentSent === true || job.documentFlushed)),
        // The printer job of the attempt that ends here is never the next attempt's.
        earlierPrinterJobs: withEarlier(
          job.earlierPrinterJobs,
          details.givenUpPrinterJob ?? (details.attempt ? job.printerJobId : undefined),
        ),
        updatedAt: now,
      };
      this.db
        .prepare(
          `UPDATE jobs SET state = ?, attempts = ?, next_retry_at = ?, last_error = ?, printer_job_id = ?,
             spool_path = ?, first_try_at = ?, document_sent = ?, document_flushed = ?,
             earlier_printer_jobs = ?, updated_at = ? WHERE job_id = ?`,
        )
        .run(
          to,
          moved.attempts,
          moved.nextRetryAt ?? null,
          moved.lastError ?? null,
          moved.printerJobId ?? null,
          moved.spoolPath ?? null,
          moved.firstTryAt ?? null,
          moved.documentSent ? 1 : 0,
          moved.documentFlushed ? 1 : 0,
          JSON.stringify(moved.earlierPrinterJobs),
          now,
          jobId,
        );
      return moved;
    });
  }

  /**
   * Records the spool file a document was written to after the job was recorded `spooled` (a
   * small document fetched again that cannot stay in memory, or a backend that needs a file).
   */
  recordSpoolFile(jobId: string, spoolPath: string): void {
    this.db.prepare('UPDATE jobs SET spool_path = ? WHERE job_id = ?').run(spoolPath, jobId);
  }

  /** Records the printer job the current submit attempt created (before its document is sent). */
  recordPrinterJob(jobId: string, printerJobId: string): void {
    this.db.prepare('UPDATE jobs SET printer_job_id = ? WHERE job_id = ?').run(printerJobId, jobId);
  }

  /**
   * Records that every byte of the current attempt's document went to the operating system, with
   * the printer job Create-Job made for it (one commit for both: docs/agent-jobs.md, "Commits").
   */
  markDocumentFlushed(jobId: string, printerJobId?: string): void {
    if (printerJobId === undefined)
      this.db.prepare('UPDATE jobs SET document_flushed = 1 WHERE job_id = ?').run(jobId);
    else
      this.db
        .prepare('UPDATE jobs SET document_flushed = 1, printer_job_id = ? WHERE job_id = ?')
        .run(printerJobId, jobId);
  }

  /** Records that the printer has the current attempt's document (flushed, and it answered). */
  markDocumentSent(jobId: string): void {
    this.db.prepare('UPDATE jobs SET document_sent = 1, document_flushed = 1 WHERE job_id = ?').run(jobId);
  }

  /**
   * Records a failed try to fetch a `spooled` job's document again: the tries in a row, the
   * counted failures, when the next try is due and why this one failed (one UPDATE: its own commit,
   * or part of the caller's atomically). Returns the job as recorded.
   */
  recordRefetchWait(jobId: string, wait: RefetchWait): LedgerJob {
    const now = this.clock.now();
    this.db
      .prepare(
        `UPDATE jobs SET refetch_tries = ?, refetch_failures = ?, next_retry_at = ?, last_error = ?,
           updated_at = ? WHERE job_id = ? AND state = 'spooled'`,
      )
      .run(wait.tries, wait.failures, wait.nextRetryAt, wait.lastError, now, jobId);
    const job = this.get(jobId);
    if (!job) throw new PrintRelayError('not_found', `job ${jobId} not in the ledger`);
    return job;
  }

  /** Ends a `spooled` job's wait for its document (it was fetched): nothing is due any more. */
  clearRefetchWait(jobId: string): void {
    this.db
      .prepare(
        'UPDATE jobs SET refetch_tries = 0, refetch_failures = 0, next_retry_at = NULL WHERE job_id = ?',
      )
      .run(jobId);
  }

  /** How many `spooled` jobs wait for their document (refetchTries above 0). */
  refetchWaits(): number {
    const row = this.db
      .prepare("SELECT COUNT(*) AS n FROM jobs WHERE state = 'spooled' AND refetch_tries > 0")
      .get() as { n: number };
    return row.n;
  }

  /** Jobs not yet in a final state, in arrival order (what a restart resumes). */
  unfinished(): LedgerJob[] {
    const rows = this.db
      .prepare("SELECT * FROM jobs WHERE state NOT IN ('completed', 'failed', 'cancelled') ORDER BY arrival")
      .all() as JobRow[];
    return rows.map(toJob);
  }

  /** Jobs in one state. */
  inState(state: JobState): LedgerJob[] {
    const rows = this.db
      .prepare('SELECT * FROM jobs WHERE state = ? ORDER BY arrival')
      .all(state) as JobRow[];
    return rows.map(toJob);
  }

  /** Deletes final jobs last updated before `beforeMs`; returns how many. */
  prune(beforeMs: number): number {
    return this.db
      .prepare("DELETE FROM jobs WHERE state IN ('completed', 'failed', 'cancelled') AND updated_at < ?")
      .run(beforeMs).changes;
  }
}

function toJob(row: JobRow): LedgerJob {
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

/** The printer jobs of earlier attempts, with `printerJobId` added once. */
function withEarlier(earlier: string[], printerJobId: string | undefined): string[] {
  return printerJobId && !earlier.includes(printerJobId) ? [...earlier, printerJobId] : earlier;
}
