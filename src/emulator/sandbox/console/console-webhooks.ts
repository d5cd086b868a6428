/**
 * The console's webhook endpoints, each with its latest deliveries and their state (queued,
 * failed, being retried), read through the face of webhooks/ (see console-snapshot.ts).
 */
import type { SandboxRecords } from '../sandbox-records.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The endpoints of one organization (undefined: every one), oldest first, with the `limit` deliveries attempted last. */
export function consoleWebhooks(
  records: SandboxRecords,
  organizationId: string | undefined,
  now: number,
  limit: number,
) {
  const deliveries = records.webhookDeliveries.recent(organizationId, limit);
  return records.webhookEndpoints.list(organizationId).map((e) => ({
    id: e.id,
    name: e.name,
    url: e.url,
    disabled: e.disabled,
    deliveries: deliveries
      .filter((d) => d.endpointId === e.id)
      .map((d) => ({
        event_id: d.eventId,
        status: d.status,
        attempts: d.attempts,
        error: d.error,
        response_status_code: d.responseStatusCode,
        last_attempt: iso(d.lastAttemptAt),
        next_attempt: d.nextAttemptAt !== null && d.nextAttemptAt > now ? iso(d.nextAttemptAt) : null,
      })),
  }));
}
