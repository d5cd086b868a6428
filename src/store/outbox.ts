/**
 * The outbox: every record the cloud must receive, in one table. Rows have a kind: job events
 * (`job-event`, delivered over the connector channel) and local copy-job operations
 * (`local-job`, delivered with /TPFM/ CreateLocalJob / UpdateLocalJob, see local-job-outbox.ts).
 * Each row gets its record's next seq and a UUID derived from the two (event-ids.ts) when added; delivery is in seq order per record
 * (the head of a record blocks its later rows), failed deliveries are retried with jittered
 * backoff, and nothing is ever dropped: a row leaves the table only when the cloud acknowledged
 * it. stats() tells depth, oldest age and the last error of every kind.
 */
import { type BackoffPolicy, backoffDelay } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { type JobEvent, MAX_EVENT_BATCH } from '../protocol/connector-channel.js';
import type { AgentDatabase } from './agent-db.js';
import { outboxRowId, readRowIdNamespace } from './event-ids.js';
import { type TransactionRunner, transactionRunner } from './transaction-runner.js';
import {
  JOB_ROWS_SQL,
  type OutboxRow,
  type PendingEvent,
  selectDueBatches,
  toPending,
} from './outbox-batches.js';

export type { PendingEvent };

/** Kinds of outbox rows. */
export type OutboxKind = 'job-event' | 'local-job';

/** Undelivered rows of one kind: how many, how old the oldest is, the last failure. */
export interface OutboxKindStats {
  depth: number;
  /** Age in ms of the oldest undelivered row; 0 when empty. */
  oldestAgeMs: number;
  /** Rows that failed at least once. */
  retrying: number;
  /** The newest delivery error among undelivered rows, if any. */
  lastError?: string;
}

/** The outbox as a status view shows it: totals and per kind. */
export interface OutboxStats extends OutboxKindStats {
  /** Creation time (epoch ms) of the oldest undelivered row, any kind. */
  oldestCreatedAt: number | undefined;
  byKind: Record<OutboxKind, OutboxKindStats>;
}

/** A row of any kind as stored: its record key, seq, id and body. */
export interface OutboxRecordRow {
  id: number;
  key: string;
  seq: number;
  rowId: string;
  body: unknown;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  lastError?: string;
}

/** The fields of an event its producer chooses; id, seq and time are added by the outbox. */
export type NewJobEvent = Omit<JobEvent, 'event_id' | 'seq' | 'at'>;

const JOB_EVENT: OutboxKind = 'job-event';

/**
 * A record's last seq: the highest of its pending rows (the (job_id, seq) index), or, when none
 * is pending, the floor the `outbox_seq_floor` trigger kept in event_seq as its rows left
 * (agent-db.ts, migration 9); 0 for a new record.
 */
const LAST_SEQ_SQL = `SELECT MAX(
    COALESCE((SELECT MAX(seq) FROM outbox WHERE job_id = @key), 0),
    COALESCE((SELECT last_seq FROM event_seq WHERE job_id = @key), 0)) AS last`;

/** Durable, ordered event queue; the database is owned by the caller. */
export class Outbox {
  private readonly inTransaction: TransactionRunner;
  private rowIdNamespace: Buffer | undefined;

  constructor(
    private readonly db: AgentDatabase,
    private readonly clock: Clock,
    private readonly backoff: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {
    this.inTransaction = transactionRunner(db);
  }

  /** Appends an event for `jobId` with the job's next seq; returns the stored event. */
  add(jobId: string, event: NewJobEvent): JobEvent {
    return this.append(JOB_EVENT, jobId, (seq, rowId, now) => ({
      event_id: rowId,
      seq,
      at: new Date(now).toISOString(),
      ...event,
    })) as JobEvent;
  }

  /**
   * Appends a row of `kind` for record `key` with the record's next seq, in one transaction;
   * `body` builds the stored JSON from the seq, the row's UUID (derived from key and seq) and the
   * time. Returns the body.
   */
  append(kind: OutboxKind, key: string, body: (seq: number, rowId: string, now: number) => unknown): unknown {
    return this.inTransaction(() => {
      const { last } = this.db.prepare(LAST_SEQ_SQL).get({ key }) as { last: number };
      const seq = last + 1;
      const now = this.clock.now();
      const rowId = outboxRowId(this.namespace(), key, seq);
      const full = body(seq, rowId, now);
      this.db
        .prepare(
          `INSERT INTO outbox (kind, job_id, seq, event_id, body_json, next_attempt_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(kind, key, seq, rowId, JSON.stringify(full), now, now);
      return full;
    });
  }

  /** The database's namespace of row ids (event-ids.ts), read once. */
  private namespace(): Buffer {
    this.rowIdNamespace ??= readRowIdNamespace(this.db);
    return this.rowIdNamespace;
  }

  /** Keys of the records of `kind` whose head row is due now, oldest head first. */
  dueKeys(kind: OutboxKind, limit = 50): string[] {
    const rows = this.db
      .prepare(
        `SELECT o.job_id FROM outbox o
         WHERE o.kind = ? AND o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id)
           AND o.next_attempt_at <= ?
         ORDER BY o.id LIMIT ?`,
      )
      .all(kind, this.clock.now(), limit) as { job_id: string }[];
    return rows.map((r) => r.job_id);
  }

  /** Every undelivered row of record `key` in seq order, any kind. */
  rowsOf(key: string): OutboxRecordRow[] {
    const rows = this.db.prepare(JOB_ROWS_SQL).all(key) as OutboxRow[];
    return rows.map((r) => ({
      id: r.id,
      key: r.job_id,
      seq: r.seq,
      rowId: r.event_id,
      body: JSON.parse(r.body_json) as unknown,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at,
      createdAt: r.created_at,
      ...(r.last_error ? { lastError: r.last_error } : {}),
    }));
  }

  /** Depth, oldest row and age, last error, in all and per kind, in one query (status, metrics). */
  stats(): OutboxStats {
    const rows = this.db
      .prepare(
        `SELECT kind, COUNT(*) AS depth, MIN(created_at) AS oldest, SUM(attempts > 0) AS retrying,
           (SELECT last_error FROM outbox i WHERE i.kind = o.kind AND i.last_error IS NOT NULL
            ORDER BY i.next_attempt_at DESC, i.id DESC LIMIT 1) AS last_error
         FROM outbox o GROUP BY kind`,
      )
      .all() as {
      kind: OutboxKind;
      depth: number;
      oldest: number;
      retrying: number;
      last_error: string | null;
    }[];
    const now = this.clock.now();
    const empty = (): OutboxKindStats => ({ depth: 0, oldestAgeMs: 0, retrying: 0 });
    const byKind: Record<OutboxKind, OutboxKindStats> = { 'job-event': empty(), 'local-job': empty() };
    const oldest = rows.length > 0 ? Math.min(...rows.map((r) => r.oldest)) : undefined;
    for (const r of rows) {
      byKind[r.kind] = {
        depth: r.depth,
        oldestAgeMs: Math.max(0, now - r.oldest),
        retrying: r.retrying,
        ...(r.last_error ? { lastError: r.last_error } : {}),
      };
    }
    const all = Object.values(byKind);
    const withError = all.filter((k) => k.lastError).sort((a, b) => b.oldestAgeMs - a.oldestAgeMs);
    return {
      depth: all.reduce((n, k) => n + k.depth, 0),
      oldestCreatedAt: oldest,
      oldestAgeMs: Math.max(...all.map((k) => k.oldestAgeMs)),
      retrying: all.reduce((n, k) => n + k.retrying, 0),
      ...(withError[0]?.lastError ? { lastError: withError[0].lastError } : {}),
      byKind,
    };
  }

  /** The head event of each job whose next attempt is due now, oldest first. */
  due(limit = 50): PendingEvent[] {
    const rows = this.db
      .prepare(
        `SELECT o.* FROM outbox o
         WHERE o.kind = 'job-event' AND o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id)
           AND o.next_attempt_at <= ?
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
    return selectDueBatches(this.db, this.clock.now(), 1, maxJobs, maxEvents, exclude)[0] ?? [];
  }

  /**
   * Up to `count` batches of dueBatch(), no job in two of them, none of the jobs in `exclude`
   * (their events are in a request still in flight): one query for the due jobs and one per
   * batch for its events (outbox-batches.ts).
   */
  dueBatches(
    count: number,
    maxJobs = MAX_EVENT_BATCH,
    maxEvents = MAX_EVENT_BATCH,
    exclude: Iterable<string> = [],
  ): PendingEvent[][] {
    return selectDueBatches(this.db, this.clock.now(), count, maxJobs, maxEvents, exclude);
  }

  /** Epoch ms of the earliest next attempt among heads of `kind`, or undefined when none. */
  nextDueAt(kind: OutboxKind = JOB_EVENT): number | undefined {
    const row = this.db
      .prepare(
        `SELECT MIN(o.next_attempt_at) AS t FROM outbox o
         WHERE o.kind = ? AND o.seq = (SELECT MIN(seq) FROM outbox WHERE job_id = o.job_id)`,
      )
      .get(kind) as { t: number | null };
    return row.t ?? undefined;
  }

  /** The cloud acknowledged the event: remove it. */
  delivered(id: number): void {
    this.db.prepare('DELETE FROM outbox WHERE id = ?').run(id);
  }

  /**
   * The cloud acknowledged all these rows: remove them in one commit, with delivered()'s statement
   * run once per row. One statement over a json_each list of the ids cost the running agent more:
   * its list's setup, paid from cold caches, outweighed the few rows a batch names
   * (docs/performance.md, "Round 7: the outbox's shape").
   */
  deliveredMany(ids: readonly number[]): void {
    const [only] = ids;
    if (ids.length === 1 && only !== undefined) this.delivered(only);
    else if (ids.length > 1)
      this.inTransaction(() => {
        for (const id of ids) this.delivered(id);
      });
  }

  /**
   * Records the answer to one batch in one transaction (one commit): the acknowledged rows
   * leave, each refused row counts a failed attempt with its reason, and every job in
   * `discardJobs` loses its undelivered events (discardJob). Returns how many rows each job
   * of `discardJobs` lost.
   */
  settleBatch(answer: {
    delivered: readonly number[];
    failed: readonly { id: number; error: string }[];
    discardJobs: readonly string[];
  }): Map<string, number> {
    const dropped = new Map<string, number>();
    const { delivered, failed, discardJobs } = answer;
    if (failed.length === 0 && discardJobs.length === 0) {
      this.deliveredMany(delivered);
      return dropped;
    }
    this.inTransaction(() => {
      this.deliveredMany(delivered);
      for (const row of failed) this.failed(row.id, row.error);
      for (const jobId of discardJobs) dropped.set(jobId, this.discardJob(jobId));
    });
    return dropped;
  }

  /** Delivery of all these events failed alike: failed() for each, in one transaction. */
  failedMany(ids: readonly number[], error: string, retryAfterMs?: number): void {
    if (ids.length === 0) return;
    this.inTransaction(() => {
      for (const id of ids) this.failed(id, error, retryAfterMs);
    });
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

  /** Number of rows not yet delivered (every kind). */
  size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM outbox').get() as { n: number }).n;
  }

  /**
   * Removes the undelivered events of a job the cloud refused this connector (another connector
   * holds it, or it ended before this one claimed it) or that the cloud answers 404/410 for (the
   * job is gone for this connector): the cloud would refuse them forever. The
   * only rows that ever leave the outbox unacknowledged. Returns how many were removed.
   */
  discardJob(jobId: string): number {
    return this.db.prepare(`DELETE FROM outbox WHERE kind = 'job-event' AND job_id = ?`).run(jobId).changes;
  }

  /** Every pending event of one job in seq order (for status views and tests). */
  pendingFor(jobId: string): PendingEvent[] {
    const rows = this.db.prepare(JOB_ROWS_SQL).all(jobId) as OutboxRow[];
    return rows.map(toPending);
  }
}
