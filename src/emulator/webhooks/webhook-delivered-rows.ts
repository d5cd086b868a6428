/**
 * Deleting delivered webhook deliveries from the queue table (see webhook-delivery-repo.ts): by
 * key range where a batch covers a stretch of neighbouring queued keys whole, one by one
 * otherwise. Runs inside the caller's transaction; borrows the database handle.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { ANY_STATUS, type DeliveryStatus } from './webhook-delivery-records.js';

/** Queued keys between two keys (run in pluck mode; its own text). */
const QUEUED_BETWEEN_SQL = `SELECT event_id FROM webhook_deliveries
  WHERE endpoint_id = ? AND status = 'queued' AND event_id BETWEEN ? AND ? ORDER BY event_id LIMIT ?`;

/**
 * Deletes delivered rows. Queued rows are delivered in key order, so most of a batch lies in
 * runs of neighbouring keys: the keys between the batch's lowest and highest are read from the
 * key index, every stretch of them that the batch delivered whole is deleted as one key range,
 * and the others one by one. Rows whose status changed since they were read (a failed attempt
 * of the same batch, a manual retry meanwhile) are deleted by any status.
 */
export function deleteDelivered(
  db: EmulatorDatabase,
  endpointId: string,
  status: DeliveryStatus,
  ids: readonly string[],
): void {
  let left: readonly string[] = ids;
  if (status === 'queued' && ids.length > 1) left = deleteQueuedRuns(db, endpointId, ids);
  if (left.length === 0) return;
  const list = JSON.stringify(left);
  const changes = db
    .prepare(
      'DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND status = ? AND event_id IN (SELECT value FROM json_each(?))',
    )
    .run(endpointId, status, list).changes;
  if (changes < left.length)
    db.prepare(
      `DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND ${ANY_STATUS}
           AND event_id IN (SELECT value FROM json_each(?))`,
    ).run(endpointId, list);
}

/**
 * Deletes the stretches of queued keys that `ids` covers whole (runs of at least two) by key
 * range; returns the ids left to delete one by one. The stretches are read in the same
 * transaction as the deletes, so a range never holds a row outside `ids`.
 */
function deleteQueuedRuns(db: EmulatorDatabase, endpointId: string, ids: readonly string[]): string[] {
  const sorted = [...ids].sort();
  const delivered = new Set(sorted);
  // Keys between the lowest and the highest; at most twice the batch is read, and the batch's
  // ids past that limit are deleted one by one.
  const present = db
    .prepare(QUEUED_BETWEEN_SQL)
    .pluck(true)
    .all(endpointId, sorted[0], sorted[sorted.length - 1], 2 * sorted.length) as string[];
  const deleteRange = db.prepare(
    `DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'queued' AND event_id BETWEEN ? AND ?`,
  );
  const ranged = new Set<string>();
  let start = 0;
  for (let i = 0; i <= present.length; i++) {
    if (i < present.length && delivered.has(present[i]!)) continue;
    if (i - start >= 2) {
      deleteRange.run(endpointId, present[start], present[i - 1]);
      for (let k = start; k < i; k++) ranged.add(present[k]!);
    }
    start = i + 1;
  }
  return ranged.size === 0 ? sorted : sorted.filter((id) => !ranged.has(id));
}
