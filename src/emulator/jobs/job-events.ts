/**
 * Pure rules of connector job events: validation of a JobEvent body, and how an event moves a
 * job's progress. Events are applied in seq order: an event whose seq is not above the last
 * applied one is stale and ignored; a finished job (completed, failed, cancelled) stays
 * finished. A `waiting` event keeps the job's state and records why it waits in its message,
 * until an event without a message moves it on. No I/O.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import { type JobEvent, type JobEventKind, WAITING_PREFIX } from '../../protocol/connector-channel.js';
import { FINAL_JOB_STATES, type JobProgress, type JobState } from './job-repo.js';
import { JOB_STATUS_CODE } from './job-status.js';

const KINDS: readonly JobEventKind[] = [
  'received',
  'downloading',
  'printing',
  'progress',
  'waiting',
  'completed',
  'failed',
  'cancelled',
];

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Validates a JobEvent body; throws ValidationErrors naming every bad field. */
export function parseJobEvent(body: unknown): JobEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationErrors([new ValidationError('body', 'must be a JSON object')]);
  }
  const e = body as Record<string, unknown>;
  const errors: ValidationError[] = [];
  const check = (ok: boolean, field: string, rule: string): void => {
    if (!ok) errors.push(new ValidationError(field, rule));
  };
  check(
    typeof e['event_id'] === 'string' && /^[\w-]{1,100}$/.test(e['event_id']),
    'event_id',
    'must be a UUID (1-100 letters, digits, - or _)',
  );
  check(
    typeof e['seq'] === 'number' && Number.isInteger(e['seq']) && e['seq'] >= 1,
    'seq',
    'must be an integer from 1',
  );
  check(KINDS.includes(e['kind'] as JobEventKind), 'kind', `must be one of ${KINDS.join(', ')}`);
  check(
    typeof e['at'] === 'string' && !Number.isNaN(Date.parse(e['at'])),
    'at',
    'must be an ISO 8601 date-time',
  );
  for (const field of ['pages_printed', 'pages_total']) {
    check(e[field] === undefined || isCount(e[field]), field, 'must be a non-negative integer');
  }
  check(
    e['error_code'] === undefined ||
      (typeof e['error_code'] === 'number' && Number.isInteger(e['error_code'])),
    'error_code',
    'must be an integer',
  );
  check(
    e['printer_job_id'] === undefined || typeof e['printer_job_id'] === 'string',
    'printer_job_id',
    'must be a string',
  );
  check(e['message'] === undefined || typeof e['message'] === 'string', 'message', 'must be a string');
  if (errors.length > 0) throw new ValidationErrors(errors);
  return e as unknown as JobEvent;
}

/** True for completed, failed and cancelled. */
export function isFinal(state: JobState): boolean {
  return FINAL_JOB_STATES.includes(state);
}

/** The job's progress after `event`, or undefined when the event is stale or the job finished. */
export function applyJobEvent(current: JobProgress, event: JobEvent, now: number): JobProgress | undefined {
  if (event.seq <= current.lastSeq || isFinal(current.state)) return undefined;
  const next: JobProgress = {
    ...current,
    lastSeq: event.seq,
    pagesPrinted: event.pages_printed ?? current.pagesPrinted,
    pagesTotal: event.pages_total ?? current.pagesTotal,
    printerJobId: event.printer_job_id ?? current.printerJobId,
    message: event.message ?? (isWaiting(current.message) ? null : current.message),
    state: nextState(current.state, event.kind),
  };
  if (event.kind === 'completed') {
    next.pagesPrinted = event.pages_printed ?? Math.max(next.pagesPrinted, next.pagesTotal);
    next.pagesTotal = Math.max(next.pagesTotal, next.pagesPrinted);
  }
  if (event.kind === 'failed') next.errorCode = event.error_code ?? JOB_STATUS_CODE.restart;
  if (isFinal(next.state)) next.finishedAt = now;
  return next;
}

/** True for the message of a `waiting` event (cleared by the job's next event that carries none). */
export function isWaiting(message: string | null): boolean {
  return message?.startsWith(WAITING_PREFIX) ?? false;
}

function nextState(state: JobState, kind: JobEventKind): JobState {
  if (kind === 'progress') return state === 'printing' ? state : 'printing';
  // Waiting changes no state: the job is still where it was (spooling, or at the printer).
  if (kind === 'waiting') return state === 'pending' || state === 'claimed' ? 'received' : state;
  return kind;
}
