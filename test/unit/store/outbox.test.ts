import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { Outbox } from '../../../src/store/outbox.js';

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
});
