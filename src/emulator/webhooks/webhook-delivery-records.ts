/**
 * The records of the webhook delivery queue: a delivery with its event as the dispatcher and
 * the service see it, the outcome of an attempt, and the mapping from the database rows. Pure.
 */
import type { WebhookTopic } from './webhook-endpoint-repo.js';

export type DeliveryStatus = 'queued' | 'pending' | 'failed';
/** SQL condition naming every status, so a statement by endpoint and event seeks by key. */
export const ANY_STATUS = `status IN ('queued', 'pending', 'failed')`;
/** Why an attempt failed: no answer in time (or none at all), or a non-2xx status. */
export type DeliveryError = 'timeout' | 'response_status_code';

/** What the dispatcher needs of a due delivery: what to send and what its next failure makes of it. */
export interface DueDelivery {
  endpointId: string;
  eventId: string;
  /** The event content as delivered (JSON text). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number | null;
  inRetryAll: boolean;
}

/** A delivery with its event, as the failed-event API shows it. */
export interface DeliveryRecord extends DueDelivery {
  topic: WebhookTopic;
  eventCreatedAt: number;
  lastAttemptAt: number | null;
  error: DeliveryError | null;
  responseStatusCode: number | null;
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
  /** The status the delivery had when it was read (part of its key). */
  status: DeliveryStatus;
  inRetryAll: boolean;
  failure?: FailedAttempt;
}

/** Sort keys of the failed event list (the spec's order parameter). */
export type EventOrderKey = 'created' | '-created' | 'event_id' | '-event_id';

/** The columns a due read returns (no topic, times or error: the dispatcher does not need them). */
export const DUE_COLUMNS =
  'event_id, body_json, status, attempts, first_attempt_at, next_attempt_at, in_retry_all';

export interface DueRow {
  event_id: string;
  body_json: string;
  status: string;
  attempts: number;
  first_attempt_at: number | null;
  next_attempt_at: number | null;
  in_retry_all: number;
}

/** The columns a due read returns of a queued row, as a raw row (the others are known for one). */
export type QueuedRow = [eventId: string, bodyJson: string, nextAttemptAt: number];

export interface DeliveryRow extends DueRow {
  endpoint_id: string;
  topic: string;
  event_created_at: number;
  last_attempt_at: number | null;
  error: string | null;
  response_status_code: number | null;
}

export const ORDER_SQL: Record<EventOrderKey, string> = {
  created: 'event_created_at ASC',
  '-created': 'event_created_at DESC',
  event_id: 'event_id ASC',
  '-event_id': 'event_id DESC',
};

export function toDue(endpointId: string, r: DueRow): DueDelivery {
  return {
    endpointId,
    eventId: r.event_id,
    body: r.body_json,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    firstAttemptAt: r.first_attempt_at,
    nextAttemptAt: r.next_attempt_at,
    inRetryAll: r.in_retry_all === 1,
  };
}

export function toQueued(endpointId: string, [eventId, body, nextAttemptAt]: QueuedRow): DueDelivery {
  return {
    endpointId,
    eventId,
    body,
    status: 'queued',
    attempts: 0,
    firstAttemptAt: null,
    nextAttemptAt,
    inRetryAll: false,
  };
}

export function toRecord(r: DeliveryRow): DeliveryRecord {
  return {
    ...toDue(r.endpoint_id, r),
    topic: r.topic as WebhookTopic,
    eventCreatedAt: r.event_created_at,
    lastAttemptAt: r.last_attempt_at,
    error: r.error as DeliveryError | null,
    responseStatusCode: r.response_status_code,
  };
}
