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

/**
 * A batch of due job events (see Outbox.dueBatch) and whether it holds every due event of the
 * jobs not in `exclude` (false when it reached `maxJobs` or `maxEvents`: more may be due).
 * Two plain queries: the due heads with their jobs' pending counts (one pass over the outbox by
 * job), then the chosen jobs' events; the one query it replaces, with a window function and
 * three sorts, cost several times both (docs/performance.md, "Round 6").
 */
export function selectDueBatch(
  db: AgentDatabase,
  now: number,
  maxJobs: number,
  maxEvents: number,
  exclude: readonly string[],
): { batch: PendingEvent[]; complete: boolean } {
  // A job's head is its row of least seq (any kind): due when it is a job event whose next
  // attempt has come. SQLite takes the bare columns of a MIN() group from the row of the minimum.
  const heads = db
    .prepare(
      `SELECT job_id, kind, id, next_attempt_at, MIN(seq) AS head_seq, COUNT(*) AS pending
       FROM outbox GROUP BY job_id
       HAVING kind = 'job-event' AND next_attempt_at <= ? AND job_id NOT IN (SELECT value FROM json_each(?))
       ORDER BY id LIMIT ?`,
    )
    .all(now, JSON.stringify(exclude), maxJobs) as { job_id: string; pending: number }[];
  const chosen: string[] = [];
  let events = 0;
  let complete = heads.length < maxJobs;
  for (const head of heads) {
    // Jobs come whole; only a first job that alone passes the cap is cut to its first events.
    if (chosen.length > 0 && events + head.pending > maxEvents) {
      complete = false;
      break;
    }
    chosen.push(head.job_id);
    events = Math.min(maxEvents, events + head.pending);
  }
  if (chosen.length === 0) return { batch: [], complete };
  const rows = db
    .prepare(
      `SELECT o.id, o.job_id, o.body_json, o.attempts, o.next_attempt_at
       FROM json_each(?) j JOIN outbox o ON o.job_id = j.value
       ORDER BY j.key, o.seq LIMIT ?`,
    )
    .all(JSON.stringify(chosen), maxEvents) as Parameters<typeof toPending>[0][];
  return { batch: rows.map(toPending), complete };
}
