/**
 * The outbox's rows as stored, and the query that picks a batch of due job events (Outbox.dueBatch
 * and dueBatches): pure reads, no writes.
 */
import type { JobEvent } from '../protocol/connector-channel.js';
import type { AgentDatabase } from './agent-db.js';

/** An event waiting for delivery. */
export interface PendingEvent {
  id: number;
  jobId: string;
  event: JobEvent;
  attempts: number;
  nextAttemptAt: number;
}

/** Every row of one record (a job's events) in seq order. */
export const JOB_ROWS_SQL = 'SELECT * FROM outbox WHERE job_id = ? ORDER BY seq';

/** An outbox row as SQLite returns it. */
export interface OutboxRow {
  id: number;
  job_id: string;
  seq: number;
  event_id: string;
  body_json: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  last_error: string | null;
}

/** The stored row (the columns a pending event needs) as a pending event. */
export function toPending(
  row: Pick<OutboxRow, 'id' | 'job_id' | 'body_json' | 'attempts' | 'next_attempt_at'>,
): PendingEvent {
  return {
    id: row.id,
    jobId: row.job_id,
    event: JSON.parse(row.body_json) as JobEvent,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
  };
}

/** A job whose head row is a due job event: the head's row id and the job's pending row count. */
interface DueHead {
  job_id: string;
  id: number;
  pending: number;
}

/**
 * Every job whose head (its row of least seq, any kind) is a job event due at `now`, with the
 * job's pending row count, oldest head first, the jobs in `exclude` left out. One plain pass over
 * the outbox by job; the leaving out and the order are done here, not in SQL: with the few rows
 * the outbox holds in the running agent, the NOT IN list's ephemeral table and the ORDER BY's
 * sorter were most of the query's cost, paid from cold caches on each run (docs/performance.md,
 * "Round 7: the outbox's shape").
 */
function dueHeads(db: AgentDatabase, now: number, exclude: ReadonlySet<string>): DueHead[] {
  // SQLite takes the bare columns of a MIN() group from the row of the minimum.
  const rows = db
    .prepare(
      `SELECT job_id, kind, id, next_attempt_at, MIN(seq) AS head_seq, COUNT(*) AS pending
       FROM outbox GROUP BY job_id
       HAVING kind = 'job-event' AND next_attempt_at <= ?`,
    )
    .all(now) as DueHead[];
  const heads = exclude.size === 0 ? rows : rows.filter((row) => !exclude.has(row.job_id));
  return heads.sort((a, b) => a.id - b.id);
}

/**
 * The jobs of the next batch from `heads` (oldest first): whole jobs, one after the other, up to
 * `maxJobs` jobs and `maxEvents` events; the batch ends before a job that does not fit, and only a
 * first job that alone passes the event cap is taken (cut to its first events).
 */
function chooseJobs(heads: readonly DueHead[], maxJobs: number, maxEvents: number): string[] {
  const chosen: string[] = [];
  let events = 0;
  for (const head of heads) {
    if (chosen.length === maxJobs || (chosen.length > 0 && events + head.pending > maxEvents)) break;
    chosen.push(head.job_id);
    events = Math.min(maxEvents, events + head.pending);
  }
  return chosen;
}

/**
 * The pending events of `jobs` in that job order and seq order, at most `maxEvents`: one run per
 * job of the statement that reads a job's events for a claim (Outbox.pendingFor), through the
 * `(job_id, seq)` index. A batch names a few jobs; one query over their ids (json_each, an ORDER
 * BY sorter) cost the running agent more per batch than these runs (docs/performance.md, "Round
 * 7: the outbox's shape").
 */
function eventsOf(db: AgentDatabase, jobs: readonly string[], maxEvents: number): PendingEvent[] {
  const events: PendingEvent[] = [];
  const statement = db.prepare(JOB_ROWS_SQL);
  for (const jobId of jobs) {
    const rows = statement.all(jobId) as OutboxRow[];
    for (const row of rows.slice(0, maxEvents - events.length)) events.push(toPending(row));
  }
  return events;
}

/**
 * Up to `count` batches of due job events (see Outbox.dueBatch), no job in two of them, none of
 * the jobs in `exclude`: one query for the due heads, then one per batch for its events. The
 * batches follow one another in head order; a batch after one that reached no cap would be empty,
 * so the usual round costs the two queries.
 */
export function selectDueBatches(
  db: AgentDatabase,
  now: number,
  count: number,
  maxJobs: number,
  maxEvents: number,
  exclude: Iterable<string>,
): PendingEvent[][] {
  let heads = dueHeads(db, now, new Set(exclude));
  const batches: PendingEvent[][] = [];
  while (batches.length < count && heads.length > 0) {
    const chosen = chooseJobs(heads, maxJobs, maxEvents);
    batches.push(eventsOf(db, chosen, maxEvents));
    heads = heads.slice(chosen.length);
  }
  return batches;
}
