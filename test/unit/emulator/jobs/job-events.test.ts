import { describe, expect, it } from 'vitest';
import { applyJobEvent, isFinal, parseJobEvent } from '../../../../src/emulator/jobs/job-events.js';
import type { JobProgress } from '../../../../src/emulator/jobs/job-repo.js';
import type { JobEvent } from '../../../../src/protocol/connector-channel.js';
import { ValidationErrors } from '../../../../src/lib/errors.js';

const start: JobProgress = {
  state: 'claimed',
  pagesPrinted: 0,
  pagesTotal: 0,
  printerJobId: null,
  errorCode: null,
  message: null,
  lastSeq: 0,
  finishedAt: null,
};
const ev = (kind: JobEvent['kind'], seq: number, extra: Partial<JobEvent> = {}): JobEvent => ({
  event_id: `e${seq}`,
  seq,
  kind,
  at: '2026-01-01T00:00:00Z',
  ...extra,
});

describe('applyJobEvent', () => {
  it.each<[JobEvent, Partial<JobProgress>]>([
    [ev('received', 1), { state: 'received', lastSeq: 1 }],
    [ev('downloading', 1), { state: 'downloading' }],
    [
      ev('printing', 1, { pages_total: 3, printer_job_id: '9' }),
      { state: 'printing', pagesTotal: 3, printerJobId: '9' },
    ],
    [ev('progress', 1, { pages_printed: 2 }), { state: 'printing', pagesPrinted: 2 }],
    [
      ev('completed', 1, { pages_printed: 3 }),
      { state: 'completed', pagesPrinted: 3, pagesTotal: 3, finishedAt: 50 },
    ],
    [ev('failed', 1), { state: 'failed', errorCode: 3011, finishedAt: 50 }],
    [
      ev('failed', 1, { error_code: 5, message: 'denied' }),
      { state: 'failed', errorCode: 5, message: 'denied' },
    ],
    [ev('cancelled', 1), { state: 'cancelled', finishedAt: 50 }],
  ])('%o', (event, expected) => {
    expect(applyJobEvent(start, event, 50)).toMatchObject(expected);
  });

  it('completed without a page count takes the known total', () => {
    const printing = applyJobEvent(start, ev('printing', 1, { pages_total: 7 }), 1)!;
    expect(applyJobEvent(printing, ev('completed', 2), 2)).toMatchObject({ pagesPrinted: 7, pagesTotal: 7 });
  });

  it('ignores stale events and events after the end', () => {
    const at5 = { ...start, state: 'printing' as const, lastSeq: 5 };
    expect(applyJobEvent(at5, ev('received', 5), 1)).toBeUndefined();
    expect(applyJobEvent(at5, ev('received', 4), 1)).toBeUndefined();
    expect(applyJobEvent(at5, ev('completed', 7), 1)).toMatchObject({ state: 'completed', lastSeq: 7 });
    const done = { ...start, state: 'completed' as const, lastSeq: 2 };
    expect(applyJobEvent(done, ev('failed', 3), 1)).toBeUndefined();
    expect(isFinal('completed') && isFinal('failed') && isFinal('cancelled') && !isFinal('printing')).toBe(
      true,
    );
  });
});

describe('parseJobEvent', () => {
  it('accepts a complete event', () => {
    expect(parseJobEvent(ev('progress', 3, { pages_printed: 1 }))).toMatchObject({
      kind: 'progress',
      seq: 3,
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ event_id: '' }, 'event_id'],
    [{ event_id: 'a b' }, 'event_id'],
    [{ seq: 0 }, 'seq'],
    [{ seq: 1.5 }, 'seq'],
    [{ kind: 'exploded' }, 'kind'],
    [{ at: 'yesterday' }, 'at'],
    [{ pages_printed: -1 }, 'pages_printed'],
    [{ pages_total: '3' }, 'pages_total'],
    [{ error_code: 'x' }, 'error_code'],
    [{ printer_job_id: 5 }, 'printer_job_id'],
    [{ message: false }, 'message'],
  ])('rejects %o naming %s', (patch, field) => {
    try {
      parseJobEvent({ ...ev('printing', 1), ...patch });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationErrors);
      expect((error as ValidationErrors).errors.map((e) => e.field)).toEqual([field]);
    }
  });

  it('rejects a body that is not an object', () => {
    expect(() => parseJobEvent([1])).toThrow(/body: must be a JSON object/);
  });
});

describe('waiting events', () => {
  const message = 'waiting: printer offline (connection refused), retry in 8 s';

  it('keeps the state, stores why, and the next event without a message clears it', () => {
    const downloading = applyJobEvent(start, ev('downloading', 1), 10) as JobProgress;
    const waiting = applyJobEvent(downloading, ev('waiting', 2, { message }), 20) as JobProgress;
    expect(waiting).toEqual({ ...downloading, lastSeq: 2, message });
    const printing = applyJobEvent(waiting, ev('printing', 3, { printer_job_id: '4' }), 30);
    expect(printing).toEqual({ ...waiting, state: 'printing', printerJobId: '4', lastSeq: 3, message: null });
  });

  it('moves a claimed job to received, and keeps a failure message it did not write', () => {
    expect(applyJobEvent(start, ev('waiting', 1, { message }), 10)).toEqual({
      ...start,
      state: 'received',
      lastSeq: 1,
      message,
    });
    const failed = { ...start, state: 'printing' as const, message: 'paper jam' };
    expect(applyJobEvent(failed, ev('progress', 1, { pages_printed: 1 }), 10)?.message).toBe('paper jam');
  });

  it('is a valid kind', () => {
    expect(parseJobEvent(ev('waiting', 1, { message })).kind).toBe('waiting');
  });
});
