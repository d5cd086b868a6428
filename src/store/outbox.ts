/**
 * The outbox: job events the cloud must receive. Each event gets a UUID and the job's next seq
 * when added; delivery is in seq order per job (the head of a job blocks its later events),
 * failed deliveries are retried with backoff, and nothing is ever dropped: a row leaves the
 * table only when the cloud acknowledged it.
 */
import { randomUUID } from 'node:crypto';
import { type BackoffPolicy, backoffDelay } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { type JobEvent, MAX_EVENT_BATCH } from '../protocol/connector-channel.js';
import type { AgentDatabase } from './agent-db.js';

/** The fields of an event its producer chooses; id, seq and time are added by the outbox. */
export type NewJobEvent = Omit<JobEvent, 'event_id' | 'seq' | 'at'>;

/** An event waiting for delivery. */
export interface PendingEvent {
  id: number;
  jobId: string;
  event: JobEvent;
  attempts: number;
  nextAttemptAt: number;
}

interface OutboxRow {
  id: number;
  job_id: string;
  body_json: string;
  attempts: number;
  next_attempt_at: number;
}

/** Durable, ordered event queue; the database is owned by the caller. */
export class Outbox {
  constructor(
    private readonly db: AgentDatabase,
    private readonly clock: Clock,
    private readonly backoff: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** Appends an event for `jobId` with the job's next seq; returns the stored event. */
  add(jobId: string, event: NewJobEvent): JobEvent {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT last_seq FROM event_seq WHERE job_id = ?').get(jobId) as
        | { last_seq: number }
        | undefined;
      const seq = (row?.last_seq ?? 0) + 1;
      this.db
        .prepare(
          'INSERT INTO event_seq (job_id, last_seq) VALUES (?, ?) ON CONFLICT(job_id) DO UPDATE SET last_seq = excluded.last_seq',
        )
        .run(jobId, seq);
      const now = this.clock.now();
      const full: JobEvent = { event_id: randomUUID(), seq, at: new Date(now).toISOString(), ...event };
      this.db
        .prepare(
          `INSERT INTO outbox (job_id, seq, event_id, body_json, next_attempt_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(jobId, seq, full.event_id, JSON.stringify(full), now, now);
      return full;
    })();
  }

  /** The head event of each job whose next attempt is due now, oldest first. */
  due(limit = 50): PendingEvent[] {
    const rows = this.db
      .prepare(
        `SELECT o.* FROM outbox o
         WHERE o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id) AND o.next_attempt_at <= ?
         ORDER BY o.id LIMIT ?`,
      )
      .all(this.clock.now(), limit) as OutboxRow[];
    return rows.map(toPending);
  }

  /**
   * A batch to send: for up to `maxJobs` jobs whose head event is due now (oldest head first,
   * jobs named in `exclude` left out, e.g. those of a batch still in flight), every pending event
   * of the job in seq order, at most `maxEvents` in all. Jobs come whole, one after the other;
   * the batch ends before a job that does not fit. Only a first job that alone passes the cap is
   * cut, to its first `maxEvents` events, so a job's events are always sent as the same prefix
   * and the rest follow once that prefix is delivered.
   */
  dueBatch(
    maxJobs = MAX_EVENT_BATCH,
    maxEvents = MAX_EVENT_BATCH,
    exclude: Iterable<string> = [],
  ): PendingEvent[] {
    const rows = this.db
      .prepare(
        `WITH heads AS (
           SELECT o.job_id, o.id AS head_id FROM outbox o
           WHERE o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id) AND o.next_attempt_at <= ?
             AND o.job_id NOT IN (SELECT value FROM json_each(?))
           ORDER BY o.id LIMIT ?
         )
         SELECT o.*, COUNT(*) OVER (PARTITION BY o.job_id) AS pending
         FROM outbox o JOIN heads h ON h.job_id = o.job_id
         ORDER BY h.head_id, o.seq LIMIT ?`,
      )
      .all(this.clock.now(), JSON.stringify([...exclude]), maxJobs, maxEvents) as (OutboxRow & {
      pending: number;
    })[];
    const batch: PendingEvent[] = [];
    for (const row of rows) {
      const startsJob = batch.at(-1)?.jobId !== row.job_id;
      if (startsJob && batch.length > 0 && batch.length + row.pending > maxEvents) break;
      batch.push(toPending(row));
    }
    return batch;
  }

  /** Epoch ms of the earliest next attempt among heads, or undefined when empty. */
  nextDueAt(): number | undefined {
    const row = this.db
      .prepare(
        `SELECT MIN(o.next_attempt_at) AS t FROM outbox o
         WHERE o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id)`,
      )
      .get() as { t: number | null };
    return row.t ?? undefined;
  }

  /** The cloud acknowledged the event: remove it. */
  delivered(id: number): void {
    this.db.prepare('DELETE FROM outbox WHERE id = ?').run(id);
  }

  /** The cloud acknowledged all these events: remove them in one transaction. */
  deliveredMany(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.db.transaction(() => {
      for (const id of ids) this.delivered(id);
    })();
  }

  /** Delivery of all these events failed alike: failed() for each, in one transaction. */
  failedMany(ids: readonly number[], error: string, retryAfterMs?: number): void {
    if (ids.length === 0) return;
    this.db.transaction(() => {
      for (const id of ids) this.failed(id, error, retryAfterMs);
    })();
  }

  /** Delivery failed: schedule the next attempt with backoff (or after `retryAfterMs`). */
  failed(id: number, error: string, retryAfterMs?: number): void {
    const row = this.db.prepare('SELECT attempts FROM outbox WHERE id = ?').get(id) as
      | { attempts: number }
      | undefined;
    if (!row) return;
    const delay = Math.max(retryAfterMs ?? 0, backoffDelay(this.backoff, row.attempts, this.random));
    this.db
      .prepare('UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?')
      .run(this.clock.now() + delay, error, id);
  }

  /** Number of events not yet delivered. */
  size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM outbox').get() as { n: number }).n;
  }

  /** Pending events and the creation time (epoch ms) of the oldest, in one query (status, metrics). */
  stats(): { depth: number; oldestCreatedAt: number | undefined } {
    const row = this.db.prepare('SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox').get() as {
      n: number;
      oldest: number | null;
    };
    return { depth: row.n, oldestCreatedAt: row.oldest ?? undefined };
  }

  /** Every pending event of one job in seq order (for status views and tests). */
  pendingFor(jobId: string): PendingEvent[] {
    const rows = this.db
      .prepare('SELECT * FROM outbox WHERE job_id = ? ORDER BY seq')
      .all(jobId) as OutboxRow[];
    return rows.map(toPending);
  }
}

function toPending(row: OutboxRow): PendingEvent {
  return {
    id: row.id,
    jobId: row.job_id,
    event: JSON.parse(row.body_json) as JobEvent,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
  };
}
