import { describe, expect, it } from 'vitest';
import { toHttpError } from '../../../../src/emulator/http/http-errors.js';
import {
  applyEventBatch,
  type BatchEvent,
  parseEventBatch,
} from '../../../../src/emulator/jobs/job-event-batch.js';
import { parseJobEvent } from '../../../../src/emulator/jobs/job-events.js';
import {
  ConflictError,
  NotFoundError,
  RetryableError,
  ValidationError,
  ValidationErrors,
} from '../../../../src/lib/errors.js';

const ev = (id: string, seq = 1) => ({ event_id: id, seq, kind: 'printing', at: '2024-01-01T00:00:00Z' });
const item = (job: string, id: string, seq = 1) => ({ job_id: job, event: ev(id, seq) });

/** The ValidationError(s) a parse throws, as `field: rule` strings. */
function problems(body: unknown): string[] {
  try {
    parseEventBatch(body);
  } catch (error) {
    if (error instanceof ValidationError) return [`${error.field}: ${error.rule}`];
    if (error instanceof ValidationErrors) return error.errors.map((e) => `${e.field}: ${e.rule}`);
    throw error;
  }
  return [];
}

describe('parseEventBatch', () => {
  it.each([
    ['no object', 'x'],
    ['no events', {}],
    ['events not an array', { events: { job_id: 'a' } }],
    ['no events in the array', { events: [] }],
    ['101 events', { events: Array.from({ length: 101 }, (_, i) => item('a', `e${i}`, i + 1)) }],
  ])('refuses %s, naming events and the 1..100 rule', (_name, body) => {
    expect(problems(body)).toEqual(['events: must be an array of 1 to 100 items']);
  });

  it('accepts 1 and 100 events and keeps their order', () => {
    expect(parseEventBatch({ events: [item('a', 'e1')] })).toEqual([{ jobId: 'a', event: ev('e1') }]);
    const hundred = Array.from({ length: 100 }, (_, i) => item(`j${i}`, `e${i}`));
    expect(parseEventBatch({ events: hundred }).map((b) => b.jobId)).toEqual(hundred.map((h) => h.job_id));
  });

  it('names every item that is not an object with a string job_id; the event is left for later', () => {
    const body = { events: [item('a', 'e1'), 'x', { event: ev('e2') }, { job_id: 7 }, { job_id: '' }] };
    expect(problems(body)).toEqual([
      'events[1]: must be an object with job_id and event',
      'events[2].job_id: must be a non-empty string',
      'events[3].job_id: must be a non-empty string',
      'events[4].job_id: must be a non-empty string',
    ]);
    expect(parseEventBatch({ events: [{ job_id: 'a', event: 'garbage' }] })).toEqual([
      { jobId: 'a', event: 'garbage' },
    ]);
  });
});

describe('applyEventBatch', () => {
  /** An apply that records calls and throws what `errors` holds for an event id. */
  function recorder(errors: Record<string, unknown> = {}) {
    const calls: string[] = [];
    const apply = async (jobId: string, event: unknown) => {
      const id = (event as { event_id?: string })?.event_id ?? '?';
      calls.push(`${jobId}/${id}`);
      if (id in errors) throw errors[id];
      parseJobEvent(event);
    };
    return { calls, apply };
  }
  const batch = (...items: [string, unknown][]): BatchEvent[] =>
    items.map(([jobId, event]) => ({ jobId, event }));

  it('applies every event in the order given and answers 204 for each', async () => {
    const { calls, apply } = recorder();
    const results = await applyEventBatch(
      batch(['a', ev('a1')], ['b', ev('b1')], ['a', ev('a2', 2)]),
      apply,
      toHttpError,
    );
    expect(calls).toEqual(['a/a1', 'b/b1', 'a/a2']);
    expect(results).toEqual([
      { event_id: 'a1', status: 204 },
      { event_id: 'b1', status: 204 },
      { event_id: 'a2', status: 204 },
    ]);
  });

  it('turns an event error into its result and skips the later events of that job only', async () => {
    const { calls, apply } = recorder({ a1: new NotFoundError('job a') });
    const results = await applyEventBatch(
      batch(['a', ev('a1')], ['b', ev('b1')], ['a', ev('a2', 2)], ['b', ev('b2', 2)]),
      apply,
      toHttpError,
    );
    expect(calls).toEqual(['a/a1', 'b/b1', 'b/b2']);
    expect(results).toEqual([
      { event_id: 'a1', status: 404, error: 'not_found', message: 'job a not found' },
      { event_id: 'b1', status: 204 },
      {
        event_id: 'a2',
        status: 409,
        error: 'skipped',
        message: 'an earlier event of this job in the batch failed',
      },
      { event_id: 'b2', status: 204 },
    ]);
  });

  it('maps conflicts and malformed events with the field as a path inside the batch', async () => {
    const { apply } = recorder({ c1: new ConflictError('job c is held by another connector', 'job_id') });
    const results = await applyEventBatch(
      batch(['c', ev('c1')], ['d', { ...ev('d1'), kind: 'exploded' }], ['e', 'not an event']),
      apply,
      toHttpError,
    );
    expect(results[0]).toMatchObject({ status: 409, error: 'conflict', field: 'events[0].job_id' });
    expect(results[1]).toMatchObject({
      event_id: 'd1',
      status: 400,
      error: 'invalid_request',
      field: 'events[1].event.kind',
    });
    expect(results[1]?.message).toMatch(/kind/);
    expect(results[2]).toMatchObject({ event_id: null, status: 400, field: 'events[2].event' });
  });

  it.each([
    ['an unexpected exception', new Error('disk full')],
    ['a retryable error (503)', new RetryableError('busy', 'try later')],
  ])('rethrows %s, so the whole request fails and is retried', async (_name, error) => {
    const { calls, apply } = recorder({ b1: error });
    await expect(
      applyEventBatch(batch(['a', ev('a1')], ['b', ev('b1')], ['c', ev('c1')]), apply, toHttpError),
    ).rejects.toBe(error);
    expect(calls).toEqual(['a/a1', 'b/b1']);
  });
});
