import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobEventWatcher } from '../../../../src/agent/control/agent-instruments.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger } from '../../../../src/store/job-ledger.js';
import { jobOffer } from '../../../support/job-offers.js';

describe('jobEventWatcher', () => {
  let db: AgentDatabase;
  let ledger: JobLedger;
  let clock: ManualClock;
  let reads: number;
  const printed: number[] = [];
  const finished: [string, string, number][] = [];
  const errors: string[] = [];

  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    ledger = new JobLedger(db, clock);
    reads = 0;
    const get = ledger.get.bind(ledger);
    ledger.get = (jobId) => {
      reads++;
      return get(jobId);
    };
    printed.length = 0;
    finished.length = 0;
    errors.length = 0;
  });
  afterEach(() => db.close());

  const watcher = () =>
    jobEventWatcher({
      ledger,
      control: {
        metrics: {
          printed: (bytes: number) => printed.push(bytes),
          jobFinished: (state: string, printer: string, latencyS: number) =>
            finished.push([state, printer, latencyS]),
        } as never,
        error: (_area: string, message: string) => errors.push(message),
      },
      printerName: (cloudId) => `name of ${cloudId}`,
      clock,
    });

  it('counts a job from the job given with its event, without reading the ledger', () => {
    ledger.add(jobOffer('j1', { size: 1234 }), 'spooled');
    const job = ledger.get('j1');
    reads = 0;
    clock.advance(2500);
    const watch = watcher();
    watch('j1', { kind: 'printing', printer_job_id: '7' }, job);
    watch('j1', { kind: 'completed' }, job);
    expect(reads).toBe(0);
    expect(printed).toEqual([1234]);
    expect(finished).toEqual([['completed', `name of ${job?.printerId}`, 2.5]]);
  });

  it('reads the job from the ledger when the event comes without it', () => {
    ledger.add(jobOffer('j2', { size: 99 }), 'spooled');
    reads = 0;
    const watch = watcher();
    watch('j2', { kind: 'printing', printer_job_id: '8' });
    watch('j2', { kind: 'failed', error_code: 3011, message: 'no such printer' });
    expect(reads).toBe(2);
    expect(printed).toEqual([99]);
    expect(finished.map(([state]) => state)).toEqual(['failed']);
    expect(errors).toEqual([expect.stringContaining('job j2 on name of')]);
  });

  it('ignores the other events without reading anything', () => {
    const watch = watcher();
    watch('j3', { kind: 'received' });
    watch('j3', { kind: 'progress', pages_printed: 1, pages_total: 2 });
    expect(reads).toBe(0);
    expect(printed).toEqual([]);
  });
});
