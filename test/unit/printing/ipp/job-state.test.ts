/**
 * jobStateOf: what the agent reads of a printer job, including how much of the document the
 * printer says it processed (K octets), which recovery compares with the spooled document.
 */
import { describe, expect, it } from 'vitest';
import { jobStateOf } from '../../../../src/printing/ipp/ipp-backend.js';

describe('jobStateOf', () => {
  it('reads state, reasons and pages', () => {
    expect(
      jobStateOf({
        'job-state': 5,
        'job-state-reasons': ['job-printing'],
        'job-impressions-completed': 2,
        'job-impressions': 4,
      }),
    ).toEqual({ state: 'processing', reasons: ['job-printing'], pagesCompleted: 2, pagesTotal: 4 });
  });

  it('reports K octets processed once the job ended, else the K octets of the job', () => {
    const ended = { 'job-state': 9, 'job-state-reasons': 'job-completed-successfully' };
    expect(jobStateOf({ ...ended, 'job-k-octets-processed': 39, 'job-k-octets': 97 }).kOctets).toBe(39);
    expect(jobStateOf({ ...ended, 'job-k-octets': 97 }).kOctets).toBe(97);
    expect(jobStateOf({ 'job-state': 8, 'job-k-octets': 12 }).kOctets).toBe(12);
  });

  it('reports no K octets for a job still going (a size announced proves nothing) or a printer that names none', () => {
    expect(
      jobStateOf({ 'job-state': 5, 'job-k-octets': 97, 'job-k-octets-processed': 10 }),
    ).not.toHaveProperty('kOctets');
    expect(jobStateOf({ 'job-state': 9, 'job-state-reasons': 'none' })).not.toHaveProperty('kOctets');
  });
});
