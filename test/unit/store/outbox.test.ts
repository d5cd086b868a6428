import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { Outbox } from '../../../src/store/outbox.js';
import { watchCommits } from '../../support/sqlite-commits.js';

describe('Outbox', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
  });
  afterEach(() => db.close());

  it('numbers events per job from 1 with unique UUID event ids', () => {
    const a1 = outbox.add('a', { kind: 'received' });
    const a2 = outbox.add('a', { kind: 'downloading' });
    const b1 = outbox.add('b', { kind: 'received' });
    expect([a1.seq, a2.seq, b1.seq]).toEqual([1, 2, 1]);
    expect(a1.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([a1.event_id, a2.event_id, b1.event_id]).size).toBe(3);
    expect(a1.at).toBe(new Date(clock.now()).toISOString());
  });

  it('offers only the head of each job, so a job is delivered in order', () => {
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'downloading' });
    outbox.add('b', { kind: 'received' });
    const due = outbox.due();
    expect(due.map((d) => [d.jobId, d.event.seq])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    outbox.delivered(due[0]?.id as number);
    expect(outbox.due().map((d) => [d.jobId, d.event.kind])).toEqual([
      ['a', 'downloading'],
      ['b', 'received'],
    ]);
  });

  it('a failed head blocks its job until the backoff passes; other jobs go on', () => {
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'completed' });
    outbox.add('b', { kind: 'received' });
    const head = outbox.due().find((d) => d.jobId === 'a');
    outbox.failed(head?.id as number, 'cloud down');
    expect(outbox.due().map((d) => d.jobId)).toEqual(['b']);
    expect(outbox.nextDueAt()).toBe(clock.now());
    clock.advance(99);
    expect(outbox.due().map((d) => d.jobId)).toEqual(['b']);
    clock.advance(1);
    expect(outbox.due().map((d) => [d.jobId, d.event.seq])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('backs off exponentially up to the maximum and honours Retry-After; never drops', () => {
    outbox.add('a', { kind: 'received' });
    const start = clock.now();
    const id = outbox.due()[0]?.id as number;
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = clock.now();
      outbox.failed(id, 'down');
      const next = outbox.nextDueAt() as number;
      delays.push(next - before);
      clock.set(next);
    }
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
    outbox.failed(id, 'slow down', 5000);
    expect((outbox.nextDueAt() as number) - clock.now()).toBe(5000);
    expect(outbox.size()).toBe(1);
    expect(outbox.pendingFor('a')[0]?.attempts).toBe(7);
    expect(clock.now()).toBeGreaterThan(start);
  });

  it('keeps counting seq after earlier events were delivered', () => {
    outbox.add('a', { kind: 'received' });
    const first = outbox.due()[0];
    outbox.delivered(first?.id as number);
    expect(outbox.add('a', { kind: 'printing' }).seq).toBe(2);
  });

  describe('dueBatch', () => {
    const shape = (rows: ReturnType<Outbox['dueBatch']>) => rows.map((r) => `${r.jobId}${r.event.seq}`);

    it('brings every pending event of each due job in seq order, jobs by age of their head, never interleaved', () => {
      outbox.add('a', { kind: 'received' });
      outbox.add('b', { kind: 'received' });
      outbox.add('a', { kind: 'downloading' });
      outbox.add('c', { kind: 'received' });
      outbox.add('a', { kind: 'printing' });
      outbox.add('b', { kind: 'completed' });
      expect(shape(outbox.dueBatch())).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'c1']);
      expect(shape(outbox.dueBatch(2))).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
      expect(shape(outbox.dueBatch(undefined, undefined, ['a', 'c']))).toEqual(['b1', 'b2']);
    });

    it('leaves out a job whose head is backed off, with all its later events', () => {
      outbox.add('a', { kind: 'received' });
      outbox.add('a', { kind: 'completed' });
      outbox.add('b', { kind: 'received' });
      outbox.failed(outbox.pendingFor('a')[0]!.id, 'down');
      expect(shape(outbox.dueBatch())).toEqual(['b1']);
      clock.advance(100);
      expect(shape(outbox.dueBatch())).toEqual(['a1', 'a2', 'b1']);
    });

    it('ends the batch before a job that does not fit whole', () => {
      for (let i = 0; i < 60; i++) outbox.add('a', { kind: 'progress', pages_printed: i });
      for (let i = 0; i < 40; i++) outbox.add('b', { kind: 'progress', pages_printed: i });
      for (let i = 0; i < 60; i++) outbox.add('c', { kind: 'progress', pages_printed: i });
      const first = outbox.dueBatch();
      expect(first).toHaveLength(100);
      expect([...new Set(first.map((r) => r.jobId))]).toEqual(['a', 'b']);
      expect(outbox.dueBatch(undefined, 99).map((r) => r.jobId)).toEqual(Array(60).fill('a'));
      const second = outbox.dueBatch(undefined, undefined, ['a', 'b']);
      expect(second.map((r) => r.event.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    });

    it('cuts only a first job that alone passes 100 events; the rest follows after', () => {
      for (let i = 0; i < 130; i++) outbox.add('long', { kind: 'progress', pages_printed: i });
      outbox.add('short', { kind: 'received' });
      const first = outbox.dueBatch();
      expect(first).toHaveLength(100);
      expect(first.map((r) => r.event.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(shape(outbox.dueBatch(undefined, undefined, ['long']))).toEqual(['short1']);
      expect(shape(outbox.dueBatch(5, 3))).toEqual(['long1', 'long2', 'long3']);
      outbox.deliveredMany(first.map((r) => r.id));
      const rest = outbox.dueBatch();
      expect(rest.filter((r) => r.jobId === 'long').map((r) => r.event.seq)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 101),
      );
      expect(outbox.size()).toBe(31);
    });
  });

  it('deliveredMany removes exactly the given rows; failedMany schedules each with backoff', () => {
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'printing' });
    outbox.add('b', { kind: 'received' });
    const [a1, a2] = outbox.pendingFor('a');
    outbox.deliveredMany([]);
    outbox.deliveredMany([a1!.id]);
    expect(outbox.pendingFor('a').map((r) => r.event.seq)).toEqual([2]);
    const b1 = outbox.pendingFor('b')[0]!;
    outbox.failedMany([a2!.id, b1.id], 'cloud down', 300);
    for (const row of [...outbox.pendingFor('a'), ...outbox.pendingFor('b')]) {
      expect(row.attempts).toBe(1);
      expect(row.nextAttemptAt).toBe(clock.now() + 300);
    }
    expect(outbox.dueBatch()).toEqual([]);
    expect(outbox.size()).toBe(2);
  });

  it('deliveredMany and failedMany: nothing given, no commit; one row, its own statement; more, one commit', () => {
    for (const job of ['a', 'b', 'c']) outbox.add(job, { kind: 'received' });
    const ids = ['a', 'b', 'c'].map((job) => outbox.pendingFor(job)[0]?.id as number);
    const counter = watchCommits(db);
    try {
      outbox.deliveredMany([]);
      outbox.failedMany([], 'cloud down');
      outbox.settleBatch({ delivered: [], failed: [], discardJobs: [] });
      expect(counter).toMatchObject({ commits: 0, writes: 0 });
      outbox.deliveredMany(ids.slice(0, 1));
      expect(counter).toMatchObject({ commits: 1, writes: 1 });
      counter.reset();
      outbox.deliveredMany(ids.slice(1));
      expect(counter).toMatchObject({ commits: 1, writes: 2 });
      expect(outbox.size()).toBe(0);
    } finally {
      counter.restore();
    }
  });

  it('keeps local-job rows in the same table, apart from job-event delivery, and reports stats per kind', () => {
    outbox.add('a', { kind: 'received' });
    clock.advance(1000);
    outbox.append('local-job', 'copy:1', (seq, rowId, now) => ({ op: 'create', seq, rowId, now }));
    outbox.append('local-job', 'copy:1', () => ({ op: 'finish' }));
    expect(outbox.dueBatch().map((r) => r.jobId)).toEqual(['a']);
    expect(outbox.dueKeys('local-job')).toEqual(['copy:1']);
    const rows = outbox.rowsOf('copy:1');
    expect(rows.map((r) => [r.seq, (r.body as { op: string }).op])).toEqual([
      [1, 'create'],
      [2, 'finish'],
    ]);
    expect(rows[0]!.body).toEqual({ op: 'create', seq: 1, rowId: rows[0]!.rowId, now: clock.now() });
    outbox.failed(rows[0]!.id, 'ECONNREFUSED 127.0.0.1:9');
    clock.advance(50);
    expect(outbox.dueKeys('local-job')).toEqual([]);
    expect(outbox.nextDueAt('local-job')).toBe(clock.now() + 50);
    expect(outbox.stats()).toEqual({
      depth: 3,
      oldestCreatedAt: clock.now() - 1050,
      oldestAgeMs: 1050,
      retrying: 1,
      lastError: 'ECONNREFUSED 127.0.0.1:9',
      byKind: {
        'job-event': { depth: 1, oldestAgeMs: 1050, retrying: 0 },
        'local-job': { depth: 2, oldestAgeMs: 50, retrying: 1, lastError: 'ECONNREFUSED 127.0.0.1:9' },
      },
    });
  });
});
