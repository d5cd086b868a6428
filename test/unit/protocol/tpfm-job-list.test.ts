/**
 * GetJobList lines field by field: what the server writes (and the fields it refuses, named),
 * what a client reads (quoted or bare names, and the malformed fields it refuses, named), and
 * the title shown for a job.
 */
import { describe, expect, it } from 'vitest';
import {
  formatJobListLine,
  jobTitle,
  parseJobListLine,
  type TpfmJob,
} from '../../../src/protocol/tpfm-job-list.js';
import { refusal } from '../../support/validation-refusals.js';

const JOB: TpfmJob = {
  fileName: 'a1.pdf',
  size: 1234,
  created: 1_700_000_000,
  modified: 1_700_000_060,
  attributes: 1,
  jobId: 'a1-B2',
  displayName: 'Quarterly report',
  driverName: 'PrintRelay',
};

describe('formatJobListLine', () => {
  it('writes the eight fields in order, names quoted', () => {
    expect(formatJobListLine(JOB)).toBe(
      'a1.pdf:1234:1700000000:1700000060:1:a1-B2:"Quarterly report":"PrintRelay"',
    );
    expect(
      formatJobListLine({ ...JOB, size: 0, created: 0, modified: 0, attributes: 0, displayName: '' }),
    ).toBe('a1.pdf:0:0:0:0:a1-B2:"":"PrintRelay"');
  });

  it.each([
    [{ fileName: '' }, 'fileName: must not be empty'],
    [{ fileName: 'a:b.pdf' }, 'fileName: must not contain a colon, quote or line break'],
    [{ displayName: 'say "hi"' }, 'displayName: must not contain a colon, quote or line break'],
    [{ displayName: 'two\nlines' }, 'displayName: must not contain a colon, quote or line break'],
    [{ driverName: 'a\rb' }, 'driverName: must not contain a colon, quote or line break'],
    [{ jobId: 'a_1' }, 'jobId: must be alphanumeric (UUID form)'],
    [{ jobId: '' }, 'jobId: must be alphanumeric (UUID form)'],
    [{ size: -1 }, 'size: must be a non-negative integer'],
    [{ created: 1.5 }, 'created: must be a non-negative integer'],
    [{ modified: Number.NaN }, 'modified: must be a non-negative integer'],
    [{ attributes: -2 }, 'attributes: must be a non-negative integer'],
  ] as [Partial<TpfmJob>, string][])('refuses %j', (change, rule) => {
    expect(refusal(() => formatJobListLine({ ...JOB, ...change }))).toBe(rule);
  });
});

describe('parseJobListLine', () => {
  it('reads what formatJobListLine writes, blanks around the line aside', () => {
    expect(parseJobListLine(`  ${formatJobListLine(JOB)}  `)).toEqual(JOB);
  });

  it('reads names with or without quotes, and keeps a lone quote', () => {
    const job = parseJobListLine('a.pdf:1:2:3:0:x1:Report:"Driver"');
    expect([job.displayName, job.driverName]).toEqual(['Report', 'Driver']);
    const odd = parseJobListLine('a.pdf:1:2:3:0:x1:":\'"');
    expect([odd.displayName, odd.driverName]).toEqual(['"', '\'"']);
    expect(parseJobListLine('a.pdf:1:2:3:0:x1:"":x').displayName).toBe('');
    expect(parseJobListLine('a.pdf:1:2:3:0:x1:"Report:x').displayName).toBe('"Report');
  });

  it.each([
    ['a.pdf:1:2:3:0:x1:name', 'jobListLine: must have 8 colon-separated fields, got 7'],
    ['a.pdf:1:2:3:0:x1:name:driver:extra', 'jobListLine: must have 8 colon-separated fields, got 9'],
    [':1:2:3:0:x1:n:d', 'fileName: must not be empty'],
    ['a.pdf:1:2:3:0:x_1:n:d', 'jobId: must be alphanumeric (UUID form)'],
    ['a.pdf:1:2:3:0:-x1 :n:d', 'jobId: must be alphanumeric (UUID form)'],
    ['a.pdf:1k:2:3:0:x1:n:d', 'size: must be a non-negative integer, got "1k"'],
    ['a.pdf:1:-2:3:0:x1:n:d', 'created: must be a non-negative integer, got "-2"'],
    ['a.pdf:1:2:x3:0:x1:n:d', 'modified: must be a non-negative integer, got "x3"'],
    ['a.pdf:1:2:3::x1:n:d', 'attributes: must be a non-negative integer, got ""'],
  ])('refuses %j naming the field', (line, rule) => {
    expect(refusal(() => parseJobListLine(line))).toBe(rule);
  });
});

describe('jobTitle', () => {
  it('shows the display name, or the file name when it is empty', () => {
    expect(jobTitle(JOB)).toBe('Quarterly report');
    expect(jobTitle({ ...JOB, displayName: '' })).toBe('a1.pdf');
  });
});
