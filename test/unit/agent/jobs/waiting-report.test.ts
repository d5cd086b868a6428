import { describe, expect, it } from 'vitest';
import { WaitingReporter, waitingMessage, waitingReason } from '../../../../src/agent/jobs/waiting-report.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { IppBusyError, IppResponseError } from '../../../../src/printing/ipp/ipp-errors.js';
import type { NewJobEvent } from '../../../../src/store/outbox.js';

const refused = new RetryableError('printer_unreachable', 'Create-Job: 127.0.0.1:9 unreachable', {
  cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
});

describe('waitingReason', () => {
  it.each<[RetryableError, string | undefined]>([
    [refused, 'printer offline (connection refused)'],
    [
      new RetryableError('printer_unreachable', 'x', { cause: { code: 'ETIMEDOUT' } }),
      'printer offline (no answer)',
    ],
    [new IppBusyError(0x0507, 'Create-Job', 'Printer busy.'), 'printer busy (server-error-busy)'],
    [
      new RetryableError('printer_error', 'Create-Job: printer answered server-error-internal-error'),
      'printer error (Create-Job: printer answered server-error-internal-error)',
    ],
    [
      new IppResponseError('Get-Jobs', 'truncated IPP message'),
      'printer answered garbage (truncated IPP message)',
    ],
    [
      new RetryableError(
        'spool_write',
        'cannot write the spool file /s/j.pdf: no space left on the device (ENOSPC)',
      ),
      'spool folder full or not writable (cannot write the spool file /s/j.pdf: no space left on the device (ENOSPC))',
    ],
    [new RetryableError('network', 'GET /d: other side closed'), undefined],
  ])('%s -> %s', (error, reason) => {
    expect(waitingReason(error)).toBe(reason);
  });

  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ECONNRESET', 'connection reset'],
    ['EPIPE', 'connection reset'],
    ['ETIMEDOUT', 'no answer'],
    ['EHOSTUNREACH', 'host unreachable'],
    ['ENETUNREACH', 'network unreachable'],
    ['ENOTFOUND', 'name not found'],
    ['EAI_AGAIN', 'name not found'],
    ['EPROTO', 'EPROTO'],
  ])('an unreachable printer whose connection failed with %s is offline (%s)', (code, words) => {
    const error = new RetryableError('printer_unreachable', 'Create-Job: unreachable', { cause: { code } });
    expect(waitingReason(error)).toBe(`printer offline (${words})`);
  });

  it("names an unreachable printer's own message when the failure carries no code", () => {
    const noCause = new RetryableError('printer_unreachable', 'Create-Job: no route');
    expect(waitingReason(noCause)).toBe('printer offline (Create-Job: no route)');
    const noCode = new RetryableError('printer_unreachable', 'Create-Job: no route', {
      cause: new Error('x'),
    });
    expect(waitingReason(noCode)).toBe('printer offline (Create-Job: no route)');
  });

  it('rounds the retry up to whole seconds, at least 1', () => {
    expect(waitingMessage('printer offline (connection refused)', 7_200)).toBe(
      'waiting: printer offline (connection refused), retry in 8 s',
    );
    expect(waitingMessage('x', 20)).toBe('waiting: x, retry in 1 s');
  });
});

describe('WaitingReporter', () => {
  const setup = () => {
    const clock = new ManualClock(0);
    const sent: [string, NewJobEvent][] = [];
    const reporter = new WaitingReporter({ emit: (id, e) => sent.push([id, e]), clock });
    return { clock, sent, reporter };
  };

  it('sends a reason once a minute, a changed reason at once, and again after clear()', () => {
    const { clock, sent, reporter } = setup();
    reporter.report('j', 'printer offline (connection refused)', 8_000);
    clock.advance(59_999);
    reporter.report('j', 'printer offline (connection refused)', 8_000);
    clock.advance(1);
    reporter.report('j', 'printer offline (connection refused)', 16_000);
    reporter.report('j', 'printer answered garbage (truncated IPP message)', 1_000);
    reporter.clear('j');
    reporter.report('j', 'printer answered garbage (truncated IPP message)', 1_000);
    expect(sent.map(([, e]) => e.message)).toEqual([
      'waiting: printer offline (connection refused), retry in 8 s',
      'waiting: printer offline (connection refused), retry in 16 s',
      'waiting: printer answered garbage (truncated IPP message), retry in 1 s',
      'waiting: printer answered garbage (truncated IPP message), retry in 1 s',
    ]);
    expect(sent.every(([id, e]) => id === 'j' && e.kind === 'waiting')).toBe(true);
  });

  it('counts the minute and the busy time from when they started, whatever the time of day', () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const sent: string[] = [];
    const reporter = new WaitingReporter({ emit: (_, e) => sent.push(e.message ?? ''), clock });
    reporter.report('j', 'printer busy (server-error-busy)', 1_000);
    clock.advance(5_000);
    reporter.report('j', 'printer busy (server-error-busy)', 1_000);
    clock.advance(59_999);
    reporter.report('j', 'printer busy (server-error-busy)', 1_000);
    expect(sent).toEqual(['waiting: printer busy (server-error-busy), retry in 1 s']);
    clock.advance(1);
    reporter.report('j', 'printer busy (server-error-busy)', 1_000);
    expect(sent).toHaveLength(2);
  });

  it('reports a busy printer only after it stayed busy for 5 s', () => {
    const { clock, sent, reporter } = setup();
    reporter.report('j', 'printer busy (server-error-busy)', 2);
    clock.advance(4_999);
    reporter.report('j', 'printer busy (server-error-busy)', 4);
    expect(sent).toEqual([]);
    clock.advance(1);
    reporter.report('j', 'printer busy (server-error-busy)', 8);
    expect(sent).toEqual([
      ['j', { kind: 'waiting', message: 'waiting: printer busy (server-error-busy), retry in 1 s' }],
    ]);
  });
});
