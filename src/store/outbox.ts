/**
 * The outbox: job events the cloud must receive. Each event gets a UUID and the job's next seq
 * when added; delivery is in seq order per job (the head of a job blocks its later events),
 * failed deliveries are retried with backoff, and nothing is ever dropped: a row leaves the
 * table only when the cloud acknowledged it.
 */
import { randomUUID } from 'node:crypto';
import { type BackoffPolicy, backoffDelay } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { JobEvent } from '../protocol/connector-channel.js';
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
