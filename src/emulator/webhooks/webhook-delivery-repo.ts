/**
 * The webhook delivery queue in SQLite: one row per (endpoint, event) carrying the event (stored
 * with the data protection settings already applied), and the retry-all runs. A delivery is
 * `queued` until its first attempt, then `pending` (automatic retries scheduled in
 * next_attempt_at) or `failed` (no automatic retry left). A delivered row is deleted (in
 * batches, see recordOutcomes). Its key is (endpoint, status, event) and queued rows are in no
 * other index, so queueing or delivering one writes the table and the key (see migration 21);
 * every statement names the status (or the statuses it may have) so it seeks by key.
 * Because every state lives here, a restart resumes where the last process stopped. Borrowing
 * the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import type { WebhookTopic } from './webhook-endpoint-repo.js';
import { deleteDelivered } from './webhook-delivered-rows.js';
import { type RecentDelivery, recentDeliveries } from './webhook-recent-deliveries.js';
import { RecentEventBodies } from './webhook-recent-bodies.js';
import {
  ANY_STATUS,
  type AttemptOutcome,
  DUE_COLUMNS,
  type DeliveryRecord,
  type DeliveryRow,
  type DeliveryStatus,
  type DueDelivery,
  type DueRow,
  type EventOrderKey,
  type FailedAttempt,
  ORDER_SQL,
  type QueuedRow,
  toDue,
  toQueued,
  toRecord,
} from './webhook-delivery-records.js';

export type {
  AttemptOutcome,
  DeliveryError,
  DeliveryRecord,
  DeliveryStatus,
  DueDelivery,
  EventOrderKey,
  FailedAttempt,
} from './webhook-delivery-records.js';

/** Queued keys after a key, in key order, from the key index alone (run in pluck mode; its own text). */
const QUEUED_KEYS_AFTER_SQL = `SELECT event_id FROM webhook_deliveries
  WHERE endpoint_id = ? AND status = 'queued' AND event_id > ? ORDER BY event_id LIMIT ?`;
/** Due queued rows after a key, in key order (run in raw mode: rows come as arrays; its own text). */
const QUEUED_AFTER_SQL = `SELECT event_id, body_json, next_attempt_at FROM webhook_deliveries
  WHERE endpoint_id = ? AND status = 'queued' AND event_id > ? AND next_attempt_at <= ?
  ORDER BY event_id LIMIT ?`;
const ATTEMPTED = `status IN ('pending', 'failed')`;

/** An endpoint with deliveries due, and its organization (for fair turns across tenants). */
export interface DueEndpoint {
  id: string;
  organizationId: string;
}

/** Reads and writes webhook deliveries (with their events) and retry-all runs. */
export class WebhookDeliveryRepo {
  /** Bodies of the events queued last, so reads of queued deliveries seldom touch the rows. */
  private readonly recentBodies = new RecentEventBodies();

  constructor(private readonly db: EmulatorDatabase) {}

  /** Stores one queued delivery of the event per endpoint, due at `now`. */
  enqueue(
    event: { eventId: string; topic: WebhookTopic; createdAt: number; body: string },
    endpointIds: readonly string[],
    now: number,
  ): void {
    const insert = this.db.prepare(
      `INSERT INTO webhook_deliveries (endpoint_id, status, event_id, next_attempt_at, topic, event_created_at, body_json)
       VALUES (?, 'queued', ?, ?, ?, ?, ?)`,
    );
    for (const id of endpointIds)
      insert.run(id, event.eventId, now, event.topic, event.createdAt, event.body);
    if (endpointIds.length > 0) this.recentBodies.remember(event.eventId, event.body, now);
  }

  /** Enabled endpoints with a delivery due at `now` or in a retry-all run (key or index lookups per endpoint). */
  dueEndpoints(now: number): DueEndpoint[] {
    const rows = this.db
      .prepare(
        `SELECT p.id, p.organization_id FROM webhook_endpoints p WHERE p.disabled = 0 AND (
           EXISTS (SELECT 1 FROM webhook_deliveries d
             WHERE d.endpoint_id = p.id AND d.status = 'queued' AND d.next_attempt_at <= ?)
           OR EXISTS (SELECT 1 FROM webhook_deliveries d INDEXED BY webhook_deliveries_retry_due
             WHERE d.endpoint_id = p.id AND d.status = 'pending' AND d.next_attempt_at <= ?)
           OR EXISTS (SELECT 1 FROM webhook_deliveries d INDEXED BY webhook_deliveries_retry_all
             WHERE d.endpoint_id = p.id AND d.in_retry_all = 1))`,
      )
      .all(now, now) as { id: string; organization_id: string }[];
    return rows.map((r) => ({ id: r.id, organizationId: r.organization_id }));
  }

  /**
   * The endpoint's deliveries in a retry-all run, then those due at `now` earliest first:
   * queued ones in event order (time-ordered ids; only those after `after`, the last queued id
   * a previous read returned, when given) merged with due retries by due time.
   */
  dueFor(endpointId: string, now: number, limit: number, after?: string): DueDelivery[] {
    const rows = this.db
      .prepare(
        `SELECT ${DUE_COLUMNS} FROM webhook_deliveries INDEXED BY webhook_deliveries_retry_all
         WHERE endpoint_id = ? AND in_retry_all = 1 LIMIT ?`,
      )
      .all(endpointId, limit) as DueRow[];
    const due = rows.map((r) => toDue(endpointId, r));
    if (due.length >= limit) return due;
    const left = limit - due.length;
    const queued = this.queuedAfter(endpointId, now, left, after);
    const retries = (
      this.db
        .prepare(
          `SELECT ${DUE_COLUMNS} FROM webhook_deliveries INDEXED BY webhook_deliveries_retry_due
           WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at <= ? AND in_retry_all = 0
           ORDER BY next_attempt_at LIMIT ?`,
        )
        .all(endpointId, now, left) as DueRow[]
    ).map((r) => toDue(endpointId, r));
    const next =
      retries.length === 0
        ? queued
        : queued
            .concat(retries)
            .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0))
            .slice(0, left);
    for (const d of next) due.push(d);
    return due;
  }

  /**
   * Due queued deliveries after `after` (all when undefined) in key order. A queued row's other
   * columns are known (no attempt yet, in no retry-all run), so only keys are read from the key
   * index when every body is a recent one (and due); otherwise the rows are read, bodies and all.
   */
  private queuedAfter(
    endpointId: string,
    now: number,
    limit: number,
    after: string | undefined,
  ): DueDelivery[] {
    const ids = this.db
      .prepare(QUEUED_KEYS_AFTER_SQL)
      .pluck(true)
      .all(endpointId, after ?? '', limit) as string[];
    const due: DueDelivery[] = [];
    for (const id of ids) {
      const recent = this.recentBodies.get(id);
      if (!recent || recent.queuedAt > now) {
        const rows = this.db
          .prepare(QUEUED_AFTER_SQL)
          .raw(true)
          .all(endpointId, after ?? '', now, limit);
        return (rows as QueuedRow[]).map((r) => toQueued(endpointId, r));
      }
      due.push(toQueued(endpointId, [id, recent.body, recent.queuedAt]));
    }
    return due;
  }

  /** The `limit` deliveries attempted last of one organization's endpoints, or of every one (undefined). */
  recent(organizationId: string | undefined, limit: number): RecentDelivery[] {
    return recentDeliveries(this.db, organizationId, limit);
  }

  find(endpointId: string, eventId: string): DeliveryRecord | undefined {
    const row = this.db
      .prepare(`SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND ${ANY_STATUS} AND event_id = ?`)
      .get(endpointId, eventId) as DeliveryRow | undefined;
    return row && toRecord(row);
  }

  /**
   * Writes what a batch of attempts left behind, in one transaction: failed attempts are
   * recorded, delivered rows are deleted (one statement per endpoint and status they were read
   * with), and the retry-all runs they finished end.
   */
  recordOutcomes(outcomes: readonly AttemptOutcome[]): void {
    if (outcomes.length === 0) return;
    this.db.transaction(() => {
      // Delivered event ids by endpoint, then by the status they were read with.
      const delivered = new Map<string, Map<DeliveryStatus, string[]>>();
      const retryAllEndpoints = new Set<string>();
      for (const o of outcomes) {
        if (o.failure) this.failed(o.endpointId, o.eventId, o.failure);
        else {
          let byStatus = delivered.get(o.endpointId);
          if (!byStatus) {
            byStatus = new Map();
            delivered.set(o.endpointId, byStatus);
          }
          const ids = byStatus.get(o.status);
          if (ids) ids.push(o.eventId);
          else byStatus.set(o.status, [o.eventId]);
        }
        if (o.inRetryAll) retryAllEndpoints.add(o.endpointId);
      }
      for (const [endpointId, byStatus] of delivered)
        for (const [status, ids] of byStatus) deleteDelivered(this.db, endpointId, status, ids);
      for (const endpointId of retryAllEndpoints) this.finishRetryAllIfDone(endpointId);
    })();
  }

  /** Records a failed attempt; the row leaves any retry-all run. */
  failed(endpointId: string, eventId: string, f: FailedAttempt): void {
    this.db
      .prepare(
        `UPDATE webhook_deliveries SET status = ?, attempts = ?, first_attempt_at = ?, last_attempt_at = ?,
           next_attempt_at = ?, error = ?, response_status_code = ?, in_retry_all = 0
         WHERE endpoint_id = ? AND ${ANY_STATUS} AND event_id = ?`,
      )
      .run(
        f.status,
        f.attempts,
        f.firstAttemptAt,
        f.lastAttemptAt,
        f.nextAttemptAt,
        f.error,
        f.responseStatusCode,
        endpointId,
        eventId,
      );
  }

  /** A page of the endpoint's failed events (pending or failed) in the given order. */
  failedPage(
    endpointId: string,
    order: readonly EventOrderKey[],
    limit: number,
    offset: number,
  ): { count: number; rows: DeliveryRecord[] } {
    const where = `WHERE endpoint_id = ? AND ${ATTEMPTED}`;
    const { n } = this.db
      .prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries ${where}`)
      .get(endpointId) as {
      n: number;
    };
    const orderSql = [...order.map((k) => ORDER_SQL[k]), 'event_id ASC'].join(', ');
    const rows = this.db
      .prepare(`SELECT * FROM webhook_deliveries ${where} ORDER BY ${orderSql} LIMIT ? OFFSET ?`)
      .all(endpointId, limit, offset) as DeliveryRow[];
    return { count: n, rows: rows.map(toRecord) };
  }

  /** Removes one failed event of the endpoint; false when there is none by that id. */
  removeFailed(endpointId: string, eventId: string): boolean {
    return (
      this.db
        .prepare(`DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND ${ATTEMPTED} AND event_id = ?`)
        .run(endpointId, eventId).changes === 1
    );
  }

  /** Removes every failed event of the endpoint; returns how many. */
  removeAllFailed(endpointId: string): number {
    return this.db
      .prepare(`DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND ${ATTEMPTED}`)
      .run(endpointId).changes;
  }

  /**
   * Deletes failed events whose first attempt is before `before` (the 30-day rule); returns how
   * many. Reads only the attempted rows of each endpoint, never the queued ones.
   */
  purgeFailedBefore(before: number): number {
    return this.db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints)
           AND ${ATTEMPTED} AND first_attempt_at < ?`,
      )
      .run(before).changes;
  }

  /** Starts a retry-all run over the endpoint's failed events; false when one runs already. */
  startRetryAll(endpointId: string, now: number): boolean {
    const started =
      this.db
        .prepare('INSERT OR IGNORE INTO webhook_retry_runs (endpoint_id, created_at) VALUES (?, ?)')
        .run(endpointId, now).changes === 1;
    if (started)
      this.db
        .prepare(`UPDATE webhook_deliveries SET in_retry_all = 1 WHERE endpoint_id = ? AND ${ATTEMPTED}`)
        .run(endpointId);
    return started;
  }

  /** The running retry-all of the endpoint (its start time), or undefined. */
  retryAll(endpointId: string): { createdAt: number } | undefined {
    const row = this.db
      .prepare('SELECT created_at FROM webhook_retry_runs WHERE endpoint_id = ?')
      .get(endpointId) as { created_at: number } | undefined;
    return row && { createdAt: row.created_at };
  }

  /** Stops the endpoint's retry-all run; false when none runs. */
  cancelRetryAll(endpointId: string): boolean {
    const changes = this.db
      .prepare('DELETE FROM webhook_retry_runs WHERE endpoint_id = ?')
      .run(endpointId).changes;
    this.db
      .prepare(
        `UPDATE webhook_deliveries INDEXED BY webhook_deliveries_retry_all SET in_retry_all = 0
         WHERE endpoint_id = ? AND in_retry_all = 1`,
      )
      .run(endpointId);
    return changes === 1;
  }

  /** Ends the endpoint's retry-all run when none of its events is left to try. */
  finishRetryAllIfDone(endpointId: string): void {
    this.db
      .prepare(
        `DELETE FROM webhook_retry_runs WHERE endpoint_id = ? AND NOT EXISTS
           (SELECT 1 FROM webhook_deliveries INDEXED BY webhook_deliveries_retry_all
             WHERE endpoint_id = ? AND in_retry_all = 1)`,
      )
      .run(endpointId, endpointId);
  }
}
