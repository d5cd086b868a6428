/**
 * JobWatchers (JobService.watch): a watcher hears the job's stored record at each notify, stops
 * hearing it once it called its stop function, and an unknown or unwatched job tells no one.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../../src/emulator/jobs/job-repo.js';
import { JobWatchers } from '../../../../src/emulator/jobs/job-watchers.js';
import { pdfFileRecord } from '../../../support/pdf-file-record.js';

function record(id: string, state: JobRecord['state']): JobRecord {
  return {
    id,
    organizationId: 'org',
    userId: 'user',
    printerId: 'printer',
    state,
    file: pdfFileRecord('/nowhere', '%PDF-', 'a.pdf'),
    ticket: { copies: 1 },
    deleteAfterPrint: false,
    fileDeleted: false,
    claimedBy: null,
    pagesPrinted: 0,
    pagesTotal: 0,
    printerJobId: null,
    errorCode: null,
    message: null,
    lastSeq: 0,
    createdAt: 0,
    updatedAt: 0,
    finishedAt: null,
  };
}

describe('JobWatchers', () => {
  it("tells each watcher of the job the record stored at that moment, and only that job's", () => {
    const stored = new Map([['j1', record('j1', 'claimed')]]);
    const watchers = new JobWatchers((id) => stored.get(id));
    const first: string[] = [];
    const second: string[] = [];
    const other: string[] = [];
    watchers.watch('j1', (job) => first.push(job.state));
    watchers.watch('j1', (job) => second.push(job.state));
    watchers.watch('j2', (job) => other.push(job.state));
    watchers.notify('j1');
    stored.set('j1', record('j1', 'completed'));
    watchers.notify('j1');
    expect(first).toEqual(['claimed', 'completed']);
    expect(second).toEqual(['claimed', 'completed']);
    expect(other).toEqual([]);
  });

  it('stops telling a watcher once its stop function was called; the others still hear', () => {
    const watchers = new JobWatchers((id) => record(id, 'printing'));
    const stopped: string[] = [];
    const kept: string[] = [];
    const stop = watchers.watch('j1', (job) => stopped.push(job.id));
    watchers.watch('j1', (job) => kept.push(job.id));
    stop();
    watchers.notify('j1');
    expect(stopped).toEqual([]);
    expect(kept).toEqual(['j1']);
  });

  it('tells no one of a job unknown to the store, and reads no record for an unwatched job', () => {
    const reads: string[] = [];
    const watchers = new JobWatchers((id) => {
      reads.push(id);
      return undefined;
    });
    const heard: string[] = [];
    watchers.watch('gone', (job) => heard.push(job.id));
    watchers.notify('gone');
    watchers.notify('unwatched');
    expect(heard).toEqual([]);
    expect(reads).toEqual(['gone']);
  });

  it('a watcher that stops while being told does not keep the others from hearing', () => {
    const watchers = new JobWatchers((id) => record(id, 'completed'));
    const heard: string[] = [];
    const stop = watchers.watch('j1', () => {
      heard.push('first');
      stop();
    });
    watchers.watch('j1', () => heard.push('second'));
    watchers.notify('j1');
    watchers.notify('j1');
    expect(heard).toEqual(['first', 'second', 'second']);
  });
});
