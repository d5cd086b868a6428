/**
 * claimAndApply (protocol 4's claim with events) with steps the test writes: a transaction that
 * keeps the writes of a committed run and drops those of a thrown one (savepoints nested), so the
 * rules are visible as what stays written.
 */
import { describe, expect, it } from 'vitest';
import { toHttpError } from '../../../../src/emulator/http/http-errors.js';
import { checkClaimEvents, claimAndApply } from '../../../../src/emulator/jobs/job-claim-events.js';
import { parseJobEvent } from '../../../../src/emulator/jobs/job-events.js';
import { ConflictError, RetryableError, ValidationError } from '../../../../src/lib/errors.js';
import type { JobEvent } from '../../../../src/protocol/connector-channel.js';

const ev = (id: string, seq: number, kind = 'received') => ({
  event_id: id,
  seq,
  kind,
  at: '2024-01-01T00:00:00Z',
});

/** Steps over an in-memory log of writes; `claimError` / `applyError` make those steps throw. */
function rig(options: { claimError?: Error; applyError?: (event: JobEvent) => Error | undefined } = {}) {
  let written: string[] = [];
  const after: string[] = [];
  const steps = {
    prepare: async (body: unknown) => parseJobEvent(body),
    inTransaction: <T>(work: () => T): T => {
      const before = [...written];
      try {
        return work();
      } catch (error) {
        written = before;
        throw error;
      }
    },
    claim: () => {
      if (options.claimError) throw options.claimError;
      written.push('claim');
    },
    apply: (event: JobEvent) => {
      written.push(`event ${event.event_id}`);
      const error = options.applyError?.(event);
      if (error) throw error;
      return event.event_id;
    },
    after: async (id: string) => {
      after.push(id);
    },
  };
  return { steps, written: () => written, after };
}

describe('claimAndApply', () => {
  it('claims and applies the events in order, one result each, then runs what follows each', async () => {
    const { steps, written, after } = rig();
    const results = await claimAndApply(steps, [ev('e1', 1), ev('e2', 2, 'downloading')], toHttpError);
    expect(results).toEqual([
      { event_id: 'e1', status: 204 },
      { event_id: 'e2', status: 204 },
    ]);
    expect(written()).toEqual(['claim', 'event e1', 'event e2']);
    expect(after).toEqual(['e1', 'e2']);
  });

  it('rolls back only a refused event, answers its reason and field, and skips the later ones', async () => {
    const { steps, written } = rig({
      applyError: (e) => (e.event_id === 'e2' ? new ConflictError('held elsewhere', 'job_id') : undefined),
    });
    const results = await claimAndApply(steps, [ev('e1', 1), ev('e2', 2), ev('e3', 3)], toHttpError);
    expect(results).toMatchObject([
      { event_id: 'e1', status: 204 },
      { event_id: 'e2', status: 409, error: 'conflict', field: 'events[1].job_id' },
      { event_id: 'e3', status: 409, error: 'skipped' },
    ]);
    expect(written()).toEqual(['claim', 'event e1']);
  });

  it('answers an event that fails its check before anything is written, naming its field', async () => {
    const { steps, written } = rig();
    const results = await claimAndApply(steps, [ev('e1', 1, 'exploded'), ev('e2', 2)], toHttpError);
    expect(results).toMatchObject([
      { event_id: 'e1', status: 400, field: 'events[0].kind' },
      { event_id: 'e2', status: 409, error: 'skipped' },
    ]);
    expect(written()).toEqual(['claim']);
  });

  it('applies nothing when the claim is refused, and throws its error', async () => {
    const { steps, written } = rig({ claimError: new ConflictError('held by another connector', 'job_id') });
    await expect(claimAndApply(steps, [ev('e1', 1)], toHttpError)).rejects.toBeInstanceOf(ConflictError);
    expect(written()).toEqual([]);
  });

  it('rolls everything back, the claim too, on an error that maps to 5xx', async () => {
    const { steps, written, after } = rig({
      applyError: (e) => (e.event_id === 'e2' ? new RetryableError('database', 'disk I/O error') : undefined),
    });
    await expect(claimAndApply(steps, [ev('e1', 1), ev('e2', 2)], toHttpError)).rejects.toBeInstanceOf(
      RetryableError,
    );
    expect(written()).toEqual([]);
    expect(after).toEqual([]);
  });
});

describe('checkClaimEvents', () => {
  it.each([
    [[]],
    ['received'],
    [[1]],
    [[null]],
    [[[]]],
    [Array.from({ length: 101 }, (_, i) => ev(`e${i}`, i + 1))],
  ])('refuses %j naming events and the rule', (events) => {
    expect(() => checkClaimEvents(events)).toThrow(ValidationError);
    try {
      checkClaimEvents(events);
    } catch (error) {
      expect(error).toMatchObject({ field: 'events', rule: 'must be an array of 1 to 100 event objects' });
    }
  });

  it('takes 1 to 100 objects', () => {
    expect(checkClaimEvents([ev('e1', 1)])).toHaveLength(1);
  });
});
