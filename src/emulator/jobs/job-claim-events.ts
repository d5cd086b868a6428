/**
 * A claim that carries the job's first events (connector protocol 4): the claim and the events
 * are written in one transaction, the events applied in order as a batch applies them (each in a
 * savepoint of its own, so one refused event rolls back only itself; the later ones answered
 * `skipped`). A refused claim applies none and throws as the claim does; an event error that maps
 * to 5xx rolls everything back, the claim too, and is rethrown. The steps are injected
 * (JobEventApplier.claimWithEvents in job-event-applier.ts), so this module does no I/O of its own
 * and holds nothing.
 */
import { ValidationError } from '../../lib/errors.js';
import {
  EVENT_SKIPPED,
  type JobEvent,
  type JobEventItemResult,
  MAX_EVENT_BATCH,
} from '../../protocol/connector-channel.js';
import type { ErrorToResult } from './job-event-batch.js';

/** What a claim with events does, step by step (JobEventApplier's own). */
export interface ClaimEventSteps<Applied> {
  /** Checks (and filters) one event before anything is written; throws what the event route would. */
  prepare(event: unknown): Promise<JobEvent>;
  /** Runs `work` in one transaction (nested: a savepoint). */
  inTransaction<T>(work: () => T): T;
  /** Claims the job; throws when it is not the connector's to take. */
  claim(): void;
  /** Writes one checked event inside the transaction. */
  apply(event: JobEvent): Applied;
  /** What follows an event once the transaction is committed (watchers, a finished job's file). */
  after(applied: Applied): Promise<void>;
}

/**
 * Checks the `events` of a claim message: 1 to MAX_EVENT_BATCH objects. Throws ValidationError
 * naming `events` otherwise.
 */
export function checkClaimEvents(events: unknown): unknown[] {
  if (
    !Array.isArray(events) ||
    events.length < 1 ||
    events.length > MAX_EVENT_BATCH ||
    events.some((event) => typeof event !== 'object' || event === null || Array.isArray(event))
  )
    throw new ValidationError('events', `must be an array of 1 to ${MAX_EVENT_BATCH} event objects`);
  return events;
}

/** Claims and applies `events` in one transaction; one result per event, in order. */
export async function claimAndApply<Applied>(
  steps: ClaimEventSteps<Applied>,
  events: unknown[],
  toResult: ErrorToResult,
): Promise<JobEventItemResult[]> {
  const prepared: (JobEvent | JobEventItemResult)[] = [];
  for (const event of events) {
    try {
      prepared.push(await steps.prepare(event));
    } catch (error) {
      prepared.push(refusal(events, prepared.length, error, toResult));
    }
  }
  const applied: Applied[] = [];
  const results = steps.inTransaction(() => {
    steps.claim();
    let refused = false;
    return prepared.map((item, i): JobEventItemResult => {
      const eventId = eventIdOf(events[i]);
      if (refused) {
        const message = 'an earlier event of this job in the claim failed';
        return { event_id: eventId, status: 409, error: EVENT_SKIPPED, message };
      }
      if (!('kind' in item)) {
        refused = true;
        return item;
      }
      try {
        applied.push(steps.inTransaction(() => steps.apply(item)));
        return { event_id: eventId, status: 204 };
      } catch (error) {
        refused = true;
        return refusal(events, i, error, toResult);
      }
    });
  });
  for (const done of applied) await steps.after(done);
  return results;
}

/** An event's refusal as its result; an error that maps to 5xx is rethrown (everything rolls back). */
function refusal(
  events: unknown[],
  index: number,
  error: unknown,
  toResult: ErrorToResult,
): JobEventItemResult {
  const mapped = toResult(error);
  if (mapped.status >= 500) throw error;
  const { error: code, message, field } = mapped.body;
  const path = field === 'body' ? `events[${index}]` : `events[${index}].${field}`;
  return {
    event_id: eventIdOf(events[index]),
    status: mapped.status,
    error: code,
    message,
    ...(typeof field === 'string' ? { field: path } : {}),
  };
}

function eventIdOf(event: unknown): string | null {
  const id =
    typeof event === 'object' && event !== null ? (event as Record<string, unknown>)['event_id'] : undefined;
  return typeof id === 'string' ? id : null;
}
