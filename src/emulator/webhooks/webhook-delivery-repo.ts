/**
 * The webhook delivery queue in SQLite: events (stored with the data protection settings
 * already applied), one delivery row per (endpoint, event), and the retry-all runs. A delivery
 * is `queued` until its first attempt, then `pending` (automatic retries scheduled in
 * next_attempt_at) or `failed` (no automatic retry left). A delivered row is deleted (in
 * batches, see recordOutcomes). Because every state lives here, a restart resumes where the last
 * process stopped. Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import type { WebhookTopic } from './webhook-endpoint-repo.js';
import {
  type AttemptOutcome,
  type DeliveryRecord,
  type DeliveryRow,
  type EventOrderKey,
  type FailedAttempt,
  ORDER_SQL,
  SELECT,
  toRecord,
} from './webhook-delivery-records.js';

export type {
  AttemptOutcome,
  DeliveryError,
  DeliveryRecord,
  DeliveryStatus,
  EventOrderKey,
  FailedAttempt,
} from './webhook-delivery-records.js';

/** Reads and writes webhook events, deliveries and retry-all runs. */
export class WebhookDeliveryRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Stores an event and one queued delivery per endpoint, due at `now`. */
  enqueue(
    event: { eventId: string; organizationId: string; topic: WebhookTopic; createdAt: number; body: string },
    endpointIds: readonly string[],
    now: number,
  ): void {
    this.db
      .prepare(
        'INSERT INTO webhook_events (event_id, organization_id, topic, created_at, body_json) VALUES (?, ?, ?, ?, ?)',
      )
      .run(event.eventId, event.organizationId, event.topic, event.createdAt, event.body);
    const insert = this.db.prepare(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at) VALUES (?, ?, 'queued', ?)`,
    );
    for (const id of endpointIds) insert.run(id, event.eventId, now);
  }

  /** Enabled endpoints with a delivery due at `now` or in a retry-all run (index lookups per endpoint). */
  dueEndpoints(now: number): string[] {
    const rows = this.db
      .prepare(
        `SELECT p.id FROM webhook_endpoints p WHERE p.disabled = 0 AND (
           EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = p.id AND d.next_attempt_at <= ?)
           OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = p.id AND d.in_retry_all = 1))`,
      )
      .all(now) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /** The endpoint's deliveries in a retry-all run, then those due at `now`, earliest first. */
  dueFor(endpointId: string, now: number, limit: number): DeliveryRecord[] {
    const retryAll = this.db
      .prepare(`${SELECT} WHERE d.endpoint_id = ? AND d.in_retry_all = 1 LIMIT ?`)
      .all(endpointId, limit) as DeliveryRow[];
    const due =
      retryAll.length >= limit
        ? []
        : (this.db
            .prepare(
              `${SELECT} WHERE d.endpoint_id = ? AND d.next_attempt_at <= ? AND d.in_retry_all = 0
               ORDER BY d.next_attempt_at LIMIT ?`,
            )
            .all(endpointId, now, limit - retryAll.length) as DeliveryRow[]);
    return (retryAll.length === 0 ? due : retryAll.concat(due)).map(toRecord);
  }

  find(endpointId: string, eventId: string): DeliveryRecord | undefined {
    const row = this.db
      .prepare(`${SELECT} WHERE d.endpoint_id = ? AND d.event_id = ?`)
      .get(endpointId, eventId) as DeliveryRow | undefined;
    return row && toRecord(row);
  }

  /**
   * Writes what a batch of attempts left behind, in one transaction: delivered rows are deleted
   * (two statements for the whole batch), their events too when no endpoint still waits for
   * them, failed attempts are recorded, and the retry-all runs they finished end.
   */
  recordOutcomes(outcomes: readonly AttemptOutcome[]): void {
    if (outcomes.length === 0) return;
    this.db.transaction(() => {
      const deliveredByEndpoint = new Map<string, string[]>();
      const retryAllEndpoints = new Set<string>();
      for (const o of outcomes) {
        if (o.failure) this.failed(o.endpointId, o.eventId, o.failure);
        else {
          const ids = deliveredByEndpoint.get(o.endpointId);
          if (ids) ids.push(o.eventId);
          else deliveredByEndpoint.set(o.endpointId, [o.eventId]);
        }
        if (o.inRetryAll) retryAllEndpoints.add(o.endpointId);
      }
      const deliveredIds: string[] = [];
      for (const [endpointId, ids] of deliveredByEndpoint) {
        this.db
          .prepare(
            'DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND event_id IN (SELECT value FROM json_each(?))',
          )
          .run(endpointId, JSON.stringify(ids));
        deliveredIds.push(...ids);
      }
      if (deliveredIds.length > 0)
        this.db
          .prepare(
            `DELETE FROM webhook_events WHERE event_id IN (SELECT value FROM json_each(?))
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.event_id)`,
          )
          .run(JSON.stringify(deliveredIds));
      for (const endpointId of retryAllEndpoints) this.finishRetryAllIfDone(endpointId);
    })();
  }

  /** Records a failed attempt; the row leaves any retry-all run. */
  failed(endpointId: string, eventId: string, f: FailedAttempt): void {
    this.db
      .prepare(
        `UPDATE webhook_deliveries SET status = ?, attempts = ?, first_attempt_at = ?, last_attempt_at = ?,
           next_attempt_at = ?, error = ?, response_status_code = ?, in_retry_all = 0
         WHERE endpoint_id = ? AND event_id = ?`,
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
    const where = `WHERE d.endpoint_id = ? AND d.status IN ('pending', 'failed')`;
    const { n } = this.db
      .prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries d ${where}`)
      .get(endpointId) as {
      n: number;
    };
    const orderSql = [...order.map((k) => ORDER_SQL[k]), 'd.event_id ASC'].join(', ');
    const rows = this.db
      .prepare(`${SELECT} ${where} ORDER BY ${orderSql} LIMIT ? OFFSET ?`)
      .all(endpointId, limit, offset) as DeliveryRow[];
    return { count: n, rows: rows.map(toRecord) };
  }

  /** Removes one failed event of the endpoint; false when there is none by that id. */
  removeFailed(endpointId: string, eventId: string): boolean {
    const changes = this.db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ? AND status IN ('pending', 'failed')`,
      )
      .run(endpointId, eventId).changes;
    this.dropOrphanEvent(eventId);
    return changes === 1;
  }

  /** Removes every failed event of the endpoint; returns how many. */
  removeAllFailed(endpointId: string): number {
    const changes = this.db
      .prepare(`DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND status IN ('pending', 'failed')`)
      .run(endpointId).changes;
    this.dropOrphanEvents();
    return changes;
  }

  /** Deletes failed events whose first attempt is before `before` (the 30-day rule); returns how many. */
  purgeFailedBefore(before: number): number {
    const changes = this.db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE status IN ('pending', 'failed') AND first_attempt_at < ?`,
      )
      .run(before).changes;
    if (changes > 0) this.dropOrphanEvents();
    return changes;
  }

  /** Starts a retry-all run over the endpoint's failed events; false when one runs already. */
  startRetryAll(endpointId: string, now: number): boolean {
    const started =
      this.db
        .prepare('INSERT OR IGNORE INTO webhook_retry_runs (endpoint_id, created_at) VALUES (?, ?)')
        .run(endpointId, now).changes === 1;
    if (started)
      this.db
        .prepare(
          `UPDATE webhook_deliveries SET in_retry_all = 1 WHERE endpoint_id = ? AND status IN ('pending', 'failed')`,
        )
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
    this.db.prepare('UPDATE webhook_deliveries SET in_retry_all = 0 WHERE endpoint_id = ?').run(endpointId);
    return changes === 1;
  }

  /** Ends the endpoint's retry-all run when none of its events is left to try. */
  finishRetryAllIfDone(endpointId: string): void {
    this.db
      .prepare(
        `DELETE FROM webhook_retry_runs WHERE endpoint_id = ? AND NOT EXISTS
           (SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND in_retry_all = 1)`,
      )
      .run(endpointId, endpointId);
  }

  private dropOrphanEvent(eventId: string): void {
    this.db
      .prepare(
        'DELETE FROM webhook_events WHERE event_id = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE event_id = ?)',
      )
      .run(eventId, eventId);
  }

  /** Deletes events no delivery refers to any more (after an endpoint is deleted). */
  dropOrphanEvents(): void {
    this.db
      .prepare(
        'DELETE FROM webhook_events WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.event_id)',
      )
      .run();
  }
}
