/**
 * The records of the webhook delivery queue: a delivery with its event as the dispatcher and
 * the service see it, the outcome of an attempt, and the mapping from the database rows. Pure.
 */
import type { WebhookTopic } from './webhook-endpoint-repo.js';

export type DeliveryStatus = 'queued' | 'pending' | 'failed';
/** Why an attempt failed: no answer in time (or none at all), or a non-2xx status. */
export type DeliveryError = 'timeout' | 'response_status_code';

/** A delivery with its event. */
export interface DeliveryRecord {
  endpointId: string;
  eventId: string;
  topic: WebhookTopic;
  eventCreatedAt: number;
  /** The event content as delivered (JSON text). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  nextAttemptAt: number | null;
  error: DeliveryError | null;
  responseStatusCode: number | null;
  inRetryAll: boolean;
}

/** What a failed attempt leaves behind. */
export interface FailedAttempt {
  status: 'pending' | 'failed';
  attempts: number;
  firstAttemptAt: number;
  lastAttemptAt: number;
  nextAttemptAt: number | null;
  error: DeliveryError;
  responseStatusCode: number | null;
}

/** What one attempt left behind: delivered (no failure; the row goes) or a failed attempt. */
export interface AttemptOutcome {
  endpointId: string;
  eventId: string;
  inRetryAll: boolean;
  failure?: FailedAttempt;
}

/** Sort keys of the failed event list (the spec's order parameter). */
export type EventOrderKey = 'created' | '-created' | 'event_id' | '-event_id';

export interface DeliveryRow {
  endpoint_id: string;
  event_id: string;
  topic: string;
  created_at: number;
  body_json: string;
  status: string;
  attempts: number;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  error: string | null;
  response_status_code: number | null;
  in_retry_all: number;
}

export const SELECT = `SELECT d.*, e.topic, e.created_at, e.body_json FROM webhook_deliveries d
  JOIN webhook_events e ON e.event_id = d.event_id`;
export const ORDER_SQL: Record<EventOrderKey, string> = {
  created: 'e.created_at ASC',
  '-created': 'e.created_at DESC',
  event_id: 'd.event_id ASC',
  '-event_id': 'd.event_id DESC',
};

export function toRecord(r: DeliveryRow): DeliveryRecord {
  return {
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    topic: r.topic as WebhookTopic,
    eventCreatedAt: r.created_at,
    body: r.body_json,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    firstAttemptAt: r.first_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    nextAttemptAt: r.next_attempt_at,
    error: r.error as DeliveryError | null,
    responseStatusCode: r.response_status_code,
    inRetryAll: r.in_retry_all === 1,
  };
}
