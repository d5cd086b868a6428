/**
 * Edges of the outbox that outbox.test.ts leaves open (found by mutation testing,
 * docs/testing.md): the stats of an empty outbox, which kind's error the totals show, a row's
 * last error, a failure reported for a row already gone, and discarding a job's events.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { Outbox } from '../../../src/store/outbox.js';
import { JOB_ROWS_SQL } from '../../../src/store/outbox-batches.js';

describe('Outbox edges', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
  });
  afterEach(() => db.close());

  const localJob = (key: string) => outbox.append('local-job', key, () => ({ op: 'create' }));

  it('reports an empty outbox as zeros for every kind, without an oldest row or an error', () => {
    expect(outbox.stats()).toEqual({
      depth: 0,
      oldestCreatedAt: undefined,
      oldestAgeMs: 0,
      retrying: 0,
      byKind: {
        'job-event': { depth: 0, oldestAgeMs: 0, retrying: 0 },
        'local-job': { depth: 0, oldestAgeMs: 0, retrying: 0 },
      },
    });
  });

  it('shows in the totals the error of the kind whose oldest row is older', () => {
    localJob('copy:1');
    clock.advance(1000);
    outbox.add('a', { kind: 'received' });
    outbox.failed(outbox.rowsOf('copy:1')[0]!.id, 'local-job error');
    outbox.failed(outbox.pendingFor('a')[0]!.id, 'job-event error');
    expect(outbox.stats().lastError).toBe('local-job error');
    outbox.delivered(outbox.rowsOf('copy:1')[0]!.id);
    clock.advance(1000);
    localJob('copy:2');
    outbox.failed(outbox.rowsOf('copy:2')[0]!.id, 'newer local-job error');
    expect(outbox.stats().lastError).toBe('job-event error');
  });

  it("gives a row's last delivery error with the row, and none before it failed", () => {
    localJob('copy:1');
    expect(outbox.rowsOf('copy:1')[0]).not.toHaveProperty('lastError');
    outbox.failed(outbox.rowsOf('copy:1')[0]!.id, 'HTTP 503');
    expect(outbox.rowsOf('copy:1')[0]).toMatchObject({ attempts: 1, lastError: 'HTTP 503' });
  });

  it('ignores a failure reported for a row that is no longer there', () => {
    outbox.add('a', { kind: 'received' });
    const [row] = outbox.pendingFor('a');
    outbox.delivered(row!.id);
    expect(() => outbox.failed(row!.id, 'late answer')).not.toThrow();
    expect(outbox.size()).toBe(0);
  });

  it("discards every event of one job, and neither other jobs' nor local-job rows of the same key", () => {
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'downloading' });
    outbox.add('b', { kind: 'received' });
    localJob('a');
    expect(outbox.discardJob('a')).toBe(2);
    expect(outbox.pendingFor('a').map((r) => r.event)).toEqual([{ op: 'create' }]);
    expect(outbox.pendingFor('b')).toHaveLength(1);
    expect(outbox.discardJob('a')).toBe(0);
  });
});

describe('Outbox.dueBatches', () => {
  let db: AgentDatabase;
  let outbox: Outbox;
  let headQueries: number;
  let eventQueries: number;
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    outbox = new Outbox(db, new ManualClock(), { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
    headQueries = 0;
    eventQueries = 0;
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      if (sql.includes('AS head_seq')) headQueries++;
      // A batch's events: the per-job statement, prepared once per batch (outbox-batches.ts eventsOf).
      if (sql === JOB_ROWS_SQL) eventQueries++;
      return prepare(sql);
    }) as AgentDatabase['prepare'];
  });
  const queries = () => {
    const counts = { heads: headQueries, events: eventQueries };
    headQueries = 0;
    eventQueries = 0;
    return counts;
  };
  afterEach(() => db.close());

  const jobsOf = (batches: ReturnType<Outbox['dueBatches']>) =>
    batches.map((b) => [...new Set(b.map((r) => r.jobId))]);

  it('asks once for the due jobs and once for the events when the first batch holds everything due', () => {
    outbox.add('a', { kind: 'received' });
    outbox.add('b', { kind: 'received' });
    outbox.add('a', { kind: 'printing' });
    expect(jobsOf(outbox.dueBatches(2))).toEqual([['a', 'b']]);
    expect(queries()).toEqual({ heads: 1, events: 1 });
  });

  it('forms the next batch, without the jobs taken, from the same due jobs when a batch reached its event cap or its job cap', () => {
    for (let i = 0; i < 60; i++) outbox.add('a', { kind: 'progress', pages_printed: i });
    for (let i = 0; i < 50; i++) outbox.add('b', { kind: 'progress', pages_printed: i });
    outbox.add('c', { kind: 'received' });
    expect(jobsOf(outbox.dueBatches(2))).toEqual([['a'], ['b', 'c']]);
    expect(queries()).toEqual({ heads: 1, events: 2 });
    expect(jobsOf(outbox.dueBatches(3, 1))).toEqual([['a'], ['b'], ['c']]);
    expect(queries()).toEqual({ heads: 1, events: 3 });
    // Three jobs at the job cap 3: the due jobs' list shows none is left, no second batch is read.
    expect(jobsOf(outbox.dueBatches(2, 3, 200))).toEqual([['a', 'b', 'c']]);
    expect(queries()).toEqual({ heads: 1, events: 1 });
    // Fewer batches asked than the jobs would fill: the rest waits.
    expect(jobsOf(outbox.dueBatches(2, 1))).toEqual([['a'], ['b']]);
    expect(queries()).toEqual({ heads: 1, events: 2 });
  });

  it('leaves the jobs in `exclude` out and keeps the oldest head first', () => {
    outbox.add('b', { kind: 'received' });
    outbox.add('a', { kind: 'received' });
    outbox.add('c', { kind: 'received' });
    outbox.add('b', { kind: 'printing' });
    expect(jobsOf(outbox.dueBatches(3, 1, 50, ['a']))).toEqual([['b'], ['c']]);
    expect(jobsOf(outbox.dueBatches(1, 50, 50, ['b', 'c']))).toEqual([['a']]);
    expect(outbox.dueBatches(2, 50, 50, ['a', 'b', 'c'])).toEqual([]);
    expect(queries()).toEqual({ heads: 3, events: 3 });
  });

  it('cuts a lone job beyond the event cap to its first events and asks once (its rest waits for the next round)', () => {
    for (let i = 0; i < 5; i++) outbox.add('a', { kind: 'progress', pages_printed: i });
    const batches = outbox.dueBatches(3, 10, 3);
    expect(batches.map((b) => b.map((r) => `${r.jobId}${r.event.seq}`))).toEqual([['a1', 'a2', 'a3']]);
    expect(queries()).toEqual({ heads: 1, events: 1 });
  });
});
