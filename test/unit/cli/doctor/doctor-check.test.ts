import { describe, expect, it } from 'vitest';
import {
  exitCodeOf,
  fail,
  formatResults,
  ok,
  runChecks,
  skip,
  warn,
} from '../../../../src/cli/doctor/doctor-check.js';

describe('doctor checks', () => {
  it('runs checks in order, flattening several results, and turns a throw or a hang into a failure', async () => {
    const results = await runChecks(
      [
        { name: 'a', run: async () => ok('a', 'fine') },
        { name: 'b', run: async () => [warn('b 1', 'meh', 'do x'), skip('b 2', 'not used')] },
        { name: 'c', run: async () => Promise.reject(new Error('boom')) },
        { name: 'd', run: () => new Promise(() => {}) },
      ],
      100,
    );
    expect(results).toEqual([
      { name: 'a', status: 'ok', detail: 'fine' },
      { name: 'b 1', status: 'warn', detail: 'meh', fix: 'do x' },
      { name: 'b 2', status: 'skip', detail: 'not used' },
      {
        name: 'c',
        status: 'fail',
        detail: 'boom',
        fix: 'see the message; run the doctor again with PRINTRELAY_DEBUG=1 for details',
      },
      {
        name: 'd',
        status: 'fail',
        detail: 'no answer within 0.1 s',
        fix: 'see the message; run the doctor again with PRINTRELAY_DEBUG=1 for details',
      },
    ]);
    expect(exitCodeOf(results)).toBe(1);
    expect(exitCodeOf(results.slice(0, 3))).toBe(0);
  });

  it('prints one aligned line per finding, the fix below it, then the totals', () => {
    expect(
      formatResults([
        ok('config', 'valid'),
        fail('tls', 'self-signed', 'trust it'),
        skip('cups', 'not used'),
      ]),
    ).toEqual([
      'ok    config  valid',
      'FAIL  tls     self-signed',
      '              fix: trust it',
      'skip  cups    not used',
      '1 failed, 0 warnings, 1 ok, 1 skipped',
    ]);
  });
});
