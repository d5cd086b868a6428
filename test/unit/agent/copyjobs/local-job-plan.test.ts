import { describe, expect, it } from 'vitest';
import {
  changedFields,
  PENDING_WINDOW_MS,
  planDelivery,
  WINDOW_MARGIN_MS,
  windowPassed,
} from '../../../../src/agent/copyjobs/local-job-plan.js';
import type { LocalJobOp } from '../../../../src/store/local-job-store.js';

const T0 = Date.UTC(2026, 0, 1);
const create = (pages: number): LocalJobOp => ({
  op: 'create',
  fields: { Copies: 1, TotalPrintedPages: pages },
  at: T0,
});
const update = (pages: number): LocalJobOp => ({
  op: 'update',
  fields: { TotalPrintedPages: pages },
  at: T0,
});
const finish = (status: 'Succeeded' | 'Failed' = 'Succeeded'): LocalJobOp => ({
  op: 'finish',
  fields: {},
  status,
  at: T0,
});

describe('planDelivery', () => {
  it('creates a Pending job with everything known while the session runs', () => {
    expect(planDelivery({ delivered: {} }, [create(2), update(5)], T0)).toEqual({
      kind: 'create',
      params: { Copies: 1, TotalPrintedPages: 5 },
      tracking: 'pending',
      delivered: { Copies: 1, TotalPrintedPages: 5 },
      consumes: 2,
    });
  });

  it('sends a session that ended before the cloud was reached as one single-request CreateLocalJob', () => {
    expect(
      planDelivery({ delivered: {} }, [create(2), update(7), finish('Failed')], T0 + 26 * 3600_000),
    ).toEqual({
      kind: 'create',
      params: { Copies: 1, TotalPrintedPages: 7 },
      status: 'Failed',
      tracking: 'single',
      delivered: { Copies: 1, TotalPrintedPages: 7 },
      consumes: 3,
    });
  });

  const pending = {
    cloudJobId: 'j1',
    delivered: { Copies: 1, TotalPrintedPages: 2 },
    deliveredStatus: 'Pending' as const,
    deliveredAt: T0,
  };

  it('updates only the changed parameters within the window, with the final Status', () => {
    expect(planDelivery(pending, [update(4), finish()], T0 + 3600_000)).toEqual({
      kind: 'update',
      params: { TotalPrintedPages: 4 },
      status: 'Succeeded',
      tracking: 'pending',
      delivered: { Copies: 1, TotalPrintedPages: 4 },
      consumes: 2,
    });
    expect(planDelivery(pending, [update(2)], T0 + 1)).toEqual({ kind: 'none', consumes: 1 });
  });

  it('treats the window as over 10 minutes before the cloud does', () => {
    const edge = T0 + PENDING_WINDOW_MS - WINDOW_MARGIN_MS;
    expect(planDelivery(pending, [update(4)], edge - 1).kind).toBe('update');
    expect(planDelivery(pending, [update(4)], edge)).toEqual({
      kind: 'wait',
      reason: 'the cloud closed the Pending job; waiting for the session to end',
    });
  });

  it('sends the rest of a job the cloud closed as a continuation, colour clamped to pages', () => {
    const record = { ...pending, delivered: { Copies: 1, TotalPrintedPages: 10, TotalPrintedColorPages: 0 } };
    const ops: LocalJobOp[] = [
      { op: 'update', fields: { TotalPrintedPages: 12, TotalPrintedColorPages: 5 }, at: T0 },
      finish(),
    ];
    expect(planDelivery(record, ops, T0 + PENDING_WINDOW_MS)).toEqual({
      kind: 'create',
      params: { Copies: 1, TotalPrintedPages: 2, TotalPrintedColorPages: 2 },
      status: 'Succeeded',
      tracking: 'continued',
      delivered: { Copies: 1, TotalPrintedPages: 12, TotalPrintedColorPages: 5 },
      consumes: 2,
    });
    expect(planDelivery(pending, [finish()], T0 + PENDING_WINDOW_MS)).toEqual({ kind: 'none', consumes: 1 });
  });

  it('clamps the colour pages of a continuation to its pages, per pair, and leaves fewer colour pages alone', () => {
    const record = {
      ...pending,
      delivered: { PrintedPages: 10, PrintedColorPages: 0, TotalPrintedPages: 10, TotalPrintedColorPages: 0 },
    };
    const ops: LocalJobOp[] = [
      {
        op: 'update',
        fields: { PrintedPages: 13, PrintedColorPages: 7, TotalPrintedPages: 14, TotalPrintedColorPages: 1 },
        at: T0,
      },
      finish(),
    ];
    const plan = planDelivery(record, ops, T0 + PENDING_WINDOW_MS);
    expect(plan.kind === 'create' && plan.params).toStrictEqual({
      PrintedPages: 3,
      PrintedColorPages: 3,
      TotalPrintedPages: 4,
      TotalPrintedColorPages: 1,
    });
  });

  it('adds no colour count to a continuation that has none', () => {
    const record = { ...pending, delivered: { Copies: 1, TotalPrintedPages: 10 } };
    const plan = planDelivery(record, [update(12), finish()], T0 + PENDING_WINDOW_MS);
    expect(plan.kind === 'create' && plan.params).toStrictEqual({ Copies: 1, TotalPrintedPages: 2 });
  });

  it('acknowledges operations of a job the cloud already holds as final without a request', () => {
    expect(planDelivery({ ...pending, deliveredStatus: 'Succeeded' }, [update(9)], T0)).toEqual({
      kind: 'none',
      consumes: 1,
    });
  });
});

describe('windowPassed', () => {
  it('counts a job the cloud never acknowledged as outside its window', () => {
    expect(windowPassed(undefined, T0)).toBe(true);
    expect(windowPassed(T0, T0)).toBe(false);
  });
});

describe('changedFields', () => {
  it('sends no parameter whose new value is missing', () => {
    expect(Object.keys(changedFields({ Copies: 1 }, { Copies: undefined, Color: 1 }))).toEqual(['Color']);
  });

  it('keeps only parameters whose value differs', () => {
    expect(changedFields({ Copies: 1, Color: 0 }, { Copies: 1, Color: 1, TotalPrintedPages: 3 })).toEqual({
      Color: 1,
      TotalPrintedPages: 3,
    });
  });
});
