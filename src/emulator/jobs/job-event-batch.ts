/**
 * Batches of connector job events (POST /connector/v1/events): the check of the request body and
 * the loop that applies the events in order, turning each event's own failure into a result
 * instead of failing the request. Applying one event is injected (JobService.applyEvent in the
 * route), so this module does no I/O of its own and holds no resources.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import { EVENT_SKIPPED, type JobEventItemResult, MAX_EVENT_BATCH } from '../../protocol/connector-channel.js';

/** One event of a checked batch; `event` is still unchecked (the apply step validates it). */
export interface BatchEvent {
  jobId: string;
  event: unknown;
}

/** Applies one event of one job, throwing what the single-event route would throw. */
export type ApplyEvent = (jobId: string, event: unknown) => Promise<unknown>;

/** The status and body an event's error answers with (the HTTP layer's mapping, passed in by the route). */
export type ErrorToResult = (error: unknown) => {
  status: number;
  body: { error: string; message: string; field?: string; [key: string]: unknown };
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the envelope `{ events: [{ job_id, event }, ...] }` with 1 to MAX_EVENT_BATCH items.
 * Throws ValidationError naming `events`, or ValidationErrors naming every bad `events[i]` or
 * `events[i].job_id`. The events themselves are checked one by one when applied.
 */
export function parseEventBatch(body: unknown): BatchEvent[] {
  const events = isObject(body) ? body['events'] : undefined;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_EVENT_BATCH) {
    throw new ValidationError('events', `must be an array of 1 to ${MAX_EVENT_BATCH} items`);
  }
  const errors: ValidationError[] = [];
  const items = events.map((item: unknown, i): BatchEvent => {
    if (!isObject(item)) {
      errors.push(new ValidationError(`events[${i}]`, 'must be an object with job_id and event'));
      return { jobId: '', event: undefined };
    }
    const jobId = item['job_id'];
    if (typeof jobId !== 'string' || jobId === '') {
      errors.push(new ValidationError(`events[${i}].job_id`, 'must be a non-empty string'));
      return { jobId: '', event: item['event'] };
    }
    return { jobId, event: item['event'] };
  });
  if (errors.length > 0) throw new ValidationErrors(errors);
  return items;
}

/**
 * Applies the events in order and answers one result per event. An event's own 4xx-class error
 * becomes its result, and the later events of that job are not tried (result 409 `skipped`), so
 * a job never moves out of order; other jobs go on. Anything that maps to 5xx is rethrown: the
 * whole request fails and the connector sends the batch again (applying is idempotent).
 */
export async function applyEventBatch(
  items: BatchEvent[],
  apply: ApplyEvent,
  toResult: ErrorToResult,
): Promise<JobEventItemResult[]> {
  const failedJobs = new Set<string>();
  const results: JobEventItemResult[] = [];
  for (const [i, { jobId, event }] of items.entries()) {
    const eventId = eventIdOf(event);
    if (failedJobs.has(jobId)) {
      const message = 'an earlier event of this job in the batch failed';
      results.push({ event_id: eventId, status: 409, error: EVENT_SKIPPED, message });
      continue;
    }
    try {
      await apply(jobId, event);
      results.push({ event_id: eventId, status: 204 });
    } catch (error) {
      const mapped = toResult(error);
      if (mapped.status >= 500) throw error;
      failedJobs.add(jobId);
      const { error: code, message, field } = mapped.body;
      results.push({
        event_id: eventId,
        status: mapped.status,
        error: code,
        message,
        ...(typeof field === 'string' ? { field: fieldPath(i, field) } : {}),
      });
    }
  }
  return results;
}

/** The event_id of a (possibly malformed) event, or null. */
function eventIdOf(event: unknown): string | null {
  const id = isObject(event) ? event['event_id'] : undefined;
  return typeof id === 'string' ? id : null;
}

/** A field of the single-event route's error, as a path inside the batch. */
function fieldPath(index: number, field: string): string {
  if (field === 'job_id') return `events[${index}].job_id`;
  if (field === 'body') return `events[${index}].event`;
  return `events[${index}].event.${field}`;
}
