import { describe, expect, it } from 'vitest';
import {
  jobStatus,
  statusCode,
  statusString,
  UNKNOWN_JOB_STATUS,
} from '../../../../src/emulator/jobs/job-status.js';
import type { JobState } from '../../../../src/emulator/jobs/job-repo.js';

describe('jobStatus', () => {
  it.each<[JobState, number | null, number, string, number]>([
    ['pending', null, 1246, '', 3],
    ['claimed', null, 1246, '', 3],
    ['received', null, 129, 'SPOOLING|', 3],
    ['downloading', null, 129, 'SPOOLING|', 3],
    ['printing', null, 129, 'PRINTING|', 3],
    ['completed', null, 0, 'PRINTED|COMPLETE|', 0],
    ['failed', null, 3011, 'ERROR|RESTART|', 0],
    ['failed', 0, 3011, 'ERROR|RESTART|', 0],
    ['failed', 1804, 1804, 'ERROR|RESTART|', 0],
    ['cancelled', null, 1223, 'DELETED|', 0],
  ])('%s (error %s) -> %i %s, position %i', (state, errorCode, code, flags, position) => {
    const status = jobStatus({ state, errorCode, pagesPrinted: 2, pagesTotal: 5 }, 3);
    expect(status).toEqual({
      jobpagesprinted: 2,
      jobpagestotal: 5,
      jobposition: position,
      jobstatus: code,
      jobstatusstring: flags,
    });
    expect(statusCode(state, errorCode)).toBe(code);
  });

  it.each<[JobState, number, string]>([
    ['downloading', 129, 'SPOOLING|WAITING|printer busy (server-error-busy), retry in 1 s|'],
    ['printing', 129, 'PRINTING|WAITING|printer busy (server-error-busy), retry in 1 s|'],
    ['completed', 0, 'PRINTED|COMPLETE|'],
  ])('a %s job whose last message is a waiting one -> %i %s', (state, code, flags) => {
    const message = 'waiting: printer busy (server-error-busy), retry in 1 s';
    const status = jobStatus({ state, errorCode: null, pagesPrinted: 0, pagesTotal: 0, message }, 1);
    expect([status.jobstatus, status.jobstatusstring]).toEqual([code, flags]);
  });

  it('shows the connector notes of a job that prints, and the reason of a failed one, after the flags, one element per line', () => {
    const message =
      'tray: "Tray 9" is not a tray of this printer; the default tray is used\ncopies 1000: not applied, a|b';
    const job = { errorCode: null, pagesPrinted: 1, pagesTotal: 1, message };
    expect(jobStatus({ ...job, state: 'completed' }, 0).jobstatusstring).toBe(
      'PRINTED|COMPLETE|tray: "Tray 9" is not a tray of this printer; the default tray is used|copies 1000: not applied, a/b|',
    );
    expect(jobStatus({ ...job, state: 'printing' }, 1).jobstatusstring).toBe(
      'PRINTING|tray: "Tray 9" is not a tray of this printer; the default tray is used|copies 1000: not applied, a/b|',
    );
    // a failed job's message is its reason: apps read it after the flags
    const failed = { ...job, message: 'document-format application/msword not supported' };
    expect(jobStatus({ ...failed, state: 'failed' }, 0).jobstatusstring).toBe(
      'ERROR|RESTART|document-format application/msword not supported|',
    );
    expect(jobStatus({ ...job, message: null, state: 'completed' }, 0).jobstatusstring).toBe(
      'PRINTED|COMPLETE|',
    );
  });

  it('joins flags in upper case with a trailing bar', () => {
    expect(statusString(['printed', 'complete'])).toBe('PRINTED|COMPLETE|');
    expect(statusString([])).toBe('');
  });

  it('answers 2 for an unknown job', () => {
    expect(UNKNOWN_JOB_STATUS.jobstatus).toBe(2);
    expect(UNKNOWN_JOB_STATUS.jobstatusstring).toBe('ERROR|');
  });
});
