/**
 * The fault rule parser (one for the API, the CLI and --faults files) and the switchboard's
 * matching: scopes, `times`, `duration_s` on the (test) clock, and organization ownership.
 */
import { describe, expect, it } from 'vitest';
import { checkFaultRule, parseFaultRule } from '../../../../src/emulator/sandbox/faults/fault-rule.js';
import {
  type FaultCaller,
  FaultSwitchboard,
  type FaultTarget,
} from '../../../../src/emulator/sandbox/faults/fault-switchboard.js';
import { ManualClock } from '../../../../src/lib/clock.js';

const target = (operation: string, caller?: FaultCaller, printers: string[] = []): FaultTarget => ({
  operation,
  mentions: (id) => printers.includes(id),
  caller: async () => caller,
});

describe('fault rules as given', () => {
  it.each([
    [
      { operation: 'Print', respond: { status: 429, headers: { 'Retry-After': 7 } }, times: 1 },
      {
        scope: { operation: 'Print' },
        action: { kind: 'respond', status: 429, headers: { 'retry-after': '7' }, body: undefined },
        times: 1,
      },
    ],
    [
      { user: 'alice@demo.test', latency_ms: 1500, duration_s: 60 },
      { scope: { user: 'alice@demo.test' }, action: { kind: 'latency', ms: 1500 }, durationS: 60 },
    ],
    [
      { operation: 'GetPrinter', cut: true },
      { scope: { operation: 'GetPrinter' }, action: { kind: 'cut' } },
    ],
  ])('takes %j', (input, draft) => {
    expect(parseFaultRule(input)).toEqual(draft);
  });

  it.each([
    [
      { operation: 'Print' },
      [
        {
          path: [],
          rule: 'is required: one action of respond, latency_ms, cut, slow_chunks_ms, end_job, printer_state, drop_connector, webhook_status',
        },
      ],
    ],
    [
      { operation: 'Print', latency_ms: 5, cut: true },
      [
        {
          path: ['cut'],
          rule: 'only one action of respond, latency_ms, cut, slow_chunks_ms, end_job, printer_state, drop_connector, webhook_status',
        },
      ],
    ],
    [{ respond: { status: 503 } }, [{ path: ['operation'], rule: 'is required with respond' }]],
    [
      { operation: 'Print', respond: { status: 99, headers: { 'bad name': 'x', ok: 'a\nb' }, extra: 1 } },
      [
        { path: ['respond', 'extra'], rule: 'unknown key (known: status, headers, body)' },
        { path: ['respond', 'status'], rule: 'must be an HTTP status from 200 to 599' },
        { path: ['respond', 'headers', 'bad name'], rule: 'is not a valid header name' },
        { path: ['respond', 'headers', 'ok'], rule: 'must be a string or number on one line' },
      ],
    ],
    [
      { operation: '', latency_ms: 0, times: 0, duration_s: 1.5, colour: 'red' },
      [
        { path: ['colour'], rule: expect.stringContaining('unknown key') },
        { path: ['operation'], rule: 'must be a non-empty string' },
        { path: ['times'], rule: 'must be a whole number from 1 to 1000000' },
        { path: ['duration_s'], rule: 'must be a whole number of seconds from 1 to 31622400' },
        { path: ['latency_ms'], rule: 'must be a whole number of milliseconds from 1 to 300000' },
      ],
    ],
    ['respond', [{ path: [], rule: 'must be an object (a fault rule)' }]],
    [{ printer_state: 'on fire' }, [{ path: ['printer_state'], rule: 'must be offline or jammed' }]],
    [
      { printer_state: 'offline', times: 1 },
      [
        { path: ['printer'], rule: 'is required with printer_state' },
        {
          path: ['times'],
          rule: 'does not apply to printer_state (it lasts until removed or duration_s ends)',
        },
      ],
    ],
    [
      { client: 'app', end_job: { error_code: 3011, pages_printed: 1 } },
      [
        {
          path: ['end_job'],
          rule: 'must be an object with one of error_code (a failure) or pages_printed (fewer pages)',
        },
      ],
    ],
    [
      { client: 'app', end_job: { error_code: 0 } },
      [{ path: ['end_job', 'error_code'], rule: 'must be a whole number from 1 (e.g. 3011)' }],
    ],
  ])('refuses %j naming every bad field', (input, issues) => {
    expect(checkFaultRule(input).issues).toEqual(issues);
  });

  it('throws ValidationErrors naming the field by its path', () => {
    expect(() => parseFaultRule({ operation: 'Print', respond: { status: 1000 } })).toThrow(
      'respond.status: must be an HTTP status from 200 to 599',
    );
  });
});

describe('the switchboard', () => {
  const demo: FaultCaller = {
    organizationId: 'org-1',
    userId: 'u-1',
    userEmail: 'Alice@demo.test',
    clientId: 'app',
  };

  it('matches by operation, printer, user (id or e-mail) and client; counts times and drops a used-up rule', async () => {
    const board = new FaultSwitchboard(new ManualClock());
    const rule = board.add(
      parseFaultRule({
        operation: 'Print',
        printer: 'p-1',
        user: 'alice@demo.test',
        client: 'app',
        latency_ms: 5,
        times: 2,
      }),
    );
    expect(await board.take(['latency'], target('GetPrinter', demo, ['p-1']))).toBeUndefined();
    expect(await board.take(['latency'], target('Print', demo, ['p-2']))).toBeUndefined();
    expect(
      await board.take(
        ['latency'],
        target('Print', { ...demo, userEmail: 'bob@demo.test', userId: 'u-2' }, ['p-1']),
      ),
    ).toBeUndefined();
    expect(
      await board.take(['latency'], target('Print', { ...demo, clientId: 'other' }, ['p-1'])),
    ).toBeUndefined();
    expect(await board.take(['latency'], target('Print', undefined, ['p-1']))).toBeUndefined();
    expect(await board.take(['respond'], target('Print', demo, ['p-1']))).toBeUndefined();
    expect((await board.take(['latency'], target('print', demo, ['p-1'])))?.id).toBe(rule.id);
    expect(board.list()[0]).toMatchObject({ hits: 1, remaining: 1 });
    expect((await board.take(['latency'], target('Print', demo, ['p-1'])))?.remaining).toBe(0);
    expect(board.list()).toEqual([]);
  });

  it('ends a rule with a duration when the clock passes its end', async () => {
    const clock = new ManualClock();
    const board = new FaultSwitchboard(clock);
    board.add(parseFaultRule({ operation: 'Print', cut: true, duration_s: 60 }));
    clock.advance(59_999);
    expect(await board.take(['cut'], target('Print'))).toBeDefined();
    clock.advance(1);
    expect(await board.take(['cut'], target('Print'))).toBeUndefined();
    expect(board.list()).toEqual([]);
  });

  it("keeps an admin's rules to their organization", async () => {
    const board = new FaultSwitchboard(new ManualClock());
    const mine = board.add(parseFaultRule({ latency_ms: 1 }), 'org-1');
    const global = board.add(parseFaultRule({ operation: 'Print', latency_ms: 2 }));
    expect(await board.take(['latency'], target('GetPrinter', { organizationId: 'org-2' }))).toBeUndefined();
    expect((await board.take(['latency'], target('GetPrinter', demo)))?.id).toBe(mine.id);
    expect(board.list('org-2')).toEqual([]);
    expect(board.list('org-1').map((r) => r.id)).toEqual([mine.id]);
    expect(board.remove(global.id, 'org-1')).toBe(false);
    expect(board.clear('org-1')).toBe(1);
    expect(board.list().map((r) => r.id)).toEqual([global.id]);
  });
});
