import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PermanentError, RetryableError, ValidationError } from '../../../../src/lib/errors.js';
import {
  LpSubmitter,
  lpFailure,
  parseLpRequestId,
  shellQuote,
} from '../../../../src/printing/cups/lp-submit.js';

describe('shellQuote', () => {
  it.each([
    'plain',
    'two words',
    "it's",
    'a;rm -rf /',
    '$(id)',
    '`id`',
    'media-col={media-size={x-dimension=21000}}',
    '',
  ])('survives /bin/sh unchanged: %j', (value) => {
    expect(execFileSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(value)}`], { encoding: 'utf8' })).toBe(
      value,
    );
  });
});

describe('parseLpRequestId', () => {
  it.each([
    ['request id is Office-12 (1 file(s))\n', { jobId: 12, requestId: 'Office-12' }],
    ['request id is Lab-Q-7 (1 file(s))', { jobId: 7, requestId: 'Lab-Q-7' }],
    ['lp: something else', undefined],
    ['', undefined],
  ])('%j', (stdout, expected) => {
    expect(parseLpRequestId(stdout)).toEqual(expected);
  });
});

describe('lpFailure', () => {
  const execError = (stderr: string) =>
    Object.assign(new Error(`Command failed: lp ...\n${stderr}`), { stderr, code: 1 });
  it.each([
    ['No such file', PermanentError, 'document_missing'],
    [execError('lp: Error - The printer or class does not exist.\n'), PermanentError, 'queue_not_found'],
    [
      execError('lp: Error - Destination "Office" is not accepting jobs.\n'),
      PermanentError,
      'queue_rejected',
    ],
    [execError('lp: Error - Unable to connect to server\n'), RetryableError, 'cups_unavailable'],
    [execError('lp: Error - scheduler not responding.\n'), RetryableError, 'cups_unavailable'],
  ])('%s', (thrown, type, code) => {
    const error = lpFailure(thrown, 'Office');
    expect(error).toBeInstanceOf(type);
    expect((error as PermanentError).code).toBe(code);
  });
});

describe('LpSubmitter', () => {
  it('passes the document and quoted arguments to unix-print and returns the job id', async () => {
    const calls: unknown[][] = [];
    const lp = new LpSubmitter(async (...args) => {
      calls.push(args);
      return { stdout: 'request id is Office-31 (1 file(s))\n', stderr: '' };
    });
    const result = await lp.submit('/spool/job 1.pdf', ['-d', 'Office', '-t', 'Q3 report; final'], 'Office');
    expect(result).toEqual({ jobId: 31, requestId: 'Office-31' });
    expect(calls).toEqual([
      ['/spool/job 1.pdf', undefined, ["'-d'", "'Office'", "'-t'", "'Q3 report; final'"]],
    ]);
  });

  it('refuses a path unix-print cannot quote, and an aborted signal, before running lp', async () => {
    let ran = false;
    const lp = new LpSubmitter(async () => {
      ran = true;
      return { stdout: '', stderr: '' };
    });
    await expect(lp.submit("/spool/it's.pdf", [], 'Office')).rejects.toBeInstanceOf(ValidationError);
    await expect(lp.submit('/spool/a.pdf', [], 'Office', AbortSignal.abort())).rejects.toThrow();
    expect(ran).toBe(false);
  });

  it('treats output without a request id as a retryable failure', async () => {
    const lp = new LpSubmitter(async () => ({ stdout: 'lp: warning\n', stderr: '' }));
    await expect(lp.submit('/spool/a.pdf', [], 'Office')).rejects.toBeInstanceOf(RetryableError);
  });
});
