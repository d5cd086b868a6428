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

/** The stored row as a pending event. */
export function toPending(row: OutboxRow): PendingEvent {
  return {
    id: row.id,
    jobId: row.job_id,
    event: JSON.parse(row.body_json) as JobEvent,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
  };
}

/**
 * A batch of due job events (see Outbox.dueBatch) and whether it holds every due event of the
 * jobs not in `exclude` (false when it reached `maxJobs` or `maxEvents`: more may be due).
 */
export function selectDueBatch(
  db: AgentDatabase,
  now: number,
  maxJobs: number,
  maxEvents: number,
  exclude: readonly string[],
): { batch: PendingEvent[]; complete: boolean } {
  const rows = db
    .prepare(
      `WITH heads AS (
         SELECT o.job_id, o.id AS head_id FROM outbox o
         WHERE o.kind = 'job-event' AND o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id)
           AND o.next_attempt_at <= ? AND o.job_id NOT IN (SELECT value FROM json_each(?))
         ORDER BY o.id LIMIT ?
       )
       SELECT o.*, COUNT(*) OVER (PARTITION BY o.job_id) AS pending
       FROM outbox o JOIN heads h ON h.job_id = o.job_id
       ORDER BY h.head_id, o.seq LIMIT ?`,
    )
    .all(now, JSON.stringify(exclude), maxJobs, maxEvents) as (OutboxRow & { pending: number })[];
  const batch: PendingEvent[] = [];
  let jobs = 0;
  for (const row of rows) {
    const startsJob = batch.at(-1)?.jobId !== row.job_id;
    if (startsJob && batch.length > 0 && batch.length + row.pending > maxEvents)
      return { batch, complete: false };
    if (startsJob) jobs++;
    batch.push(toPending(row));
  }
  return { batch, complete: rows.length < maxEvents && jobs < maxJobs };
}
