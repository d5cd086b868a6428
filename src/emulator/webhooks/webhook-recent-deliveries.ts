/**
 * The latest deliveries of the webhook queue with their state (see webhook-delivery-repo.ts):
 * queued, failed or being retried, of one organization's endpoints or of every one. A read;
 * borrows the database handle.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';

/** A delivery as a list shows it: its state and attempts, never its body. */
export interface RecentDelivery {
  endpointId: string;
  eventId: string;
  status: string;
  attempts: number;
  error: string | null;
  responseStatusCode: number | null;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
}

interface RecentRow {
  endpoint_id: string;
  event_id: string;
  status: string;
  attempts: number;
  error: string | null;
  response_status_code: number | null;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
}

/** The `limit` deliveries last attempted (never attempted last) of the organization's endpoints (undefined: every one). */
export function recentDeliveries(
  db: EmulatorDatabase,
  organizationId: string | undefined,
  limit: number,
): RecentDelivery[] {
  const { clause, params } = organizationScope('e.organization_id', organizationId);
  const rows = db
    .prepare(
      `SELECT d.endpoint_id, d.event_id, d.status, d.attempts, d.error, d.response_status_code,
         d.next_attempt_at, d.last_attempt_at
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       ${clause} ORDER BY d.last_attempt_at DESC LIMIT ?`,
    )
    .all(...params, limit) as RecentRow[];
  return rows.map((r) => ({
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    status: r.status,
    attempts: r.attempts,
    error: r.error,
    responseStatusCode: r.response_status_code,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
  }));
}
