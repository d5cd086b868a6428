import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { JobEventBatchItem, JobEventItemResult } from '../../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';

type Refusal = Omit<JobEventItemResult, 'event_id'>;

/** A cloud that answers batches as the emulator does, with switches for outages and refusals. */
class FakeCloud {
  up = true;
  retryAfterMs: number | undefined;
  /** Refusals by `<job>:<seq>`, answered until removed. */
  readonly refuse = new Map<string, Refusal>();
  /** Events applied, as `<job>:<seq>`, in the order they were applied. */
  readonly applied: string[] = [];
  readonly batches: JobEventBatchItem[][] = [];
  /** Jobs two batches carried at the same time (must stay empty). */
  readonly overlaps: string[] = [];
  maxInFlight = 0;
  private readonly seen = new Set<string>();
  private readonly inFlight = new Set<string>();
  private batchesInFlight = 0;

  readonly post: PostEvents = async (items) => {
    this.batches.push(items);
    this.batchesInFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.batchesInFlight);
    const jobs = [...new Set(items.map((item) => item.job_id))];
    for (const job of jobs) {
      if (this.inFlight.has(job)) this.overlaps.push(job);
      this.inFlight.add(job);
    }
    await new Promise((resolve) => setImmediate(resolve));
    for (const job of jobs) this.inFlight.delete(job);
    this.batchesInFlight--;
    if (!this.up) throw new RetryableError('network', 'ECONNREFUSED', { retryAfterMs: this.retryAfterMs });
    return this.answer(items);
  };

  private answer(items: JobEventBatchItem[]): JobEventItemResult[] {
    const failed = new Set<string>();
    return items.map(({ job_id, event }) => {
      if (failed.has(job_id)) {
        return { event_id: event.event_id, status: 409, error: 'skipped', message: 'earlier event failed' };
      }
      const refusal = this.refuse.get(`${job_id}:${event.seq}`);
      if (refusal) {
        failed.add(job_id);
        return { event_id: event.event_id, ...refusal };
      }
      if (!this.seen.has(event.event_id)) this.applied.push(`${job_id}:${event.seq}`);
      this.seen.add(event.event_id);
      return { event_id: event.event_id, status: 204 };
    });
  }
}

describe('OutboxSender', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  let cloud: FakeCloud;
  let sender: OutboxSender;
  const flush = () => sender.flush(new AbortController().signal);
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
    cloud = new FakeCloud();
    sender = new OutboxSender(outbox, cloud.post, clock, silentLogger());
  });
  afterEach(() => db.close());

  it('sends all pending events of a job in one batch, in seq order', async () => {
    for (const kind of ['received', 'downloading', 'printing', 'completed'] as const)
      outbox.add('a', { kind });
    outbox.add('b', { kind: 'received' });
    expect(await flush()).toBe(5);
    expect(cloud.batches).toHaveLength(1);
    expect(cloud.batches[0]!.map((i) => `${i.job_id}:${i.event.seq}:${i.event.kind}`)).toEqual([
      'a:1:received',
      'a:2:downloading',
      'a:3:printing',
      'a:4:completed',
      'b:1:received',
    ]);
    expect(outbox.size()).toBe(0);
  });

  it('keeps a job in order across batches: at most 2 in flight, never sharing a job', async () => {
    for (let i = 0; i < 250; i++) outbox.add('long', { kind: 'progress', pages_printed: i });
    for (const job of ['x', 'y', 'z']) outbox.add(job, { kind: 'received' });
    expect(await flush()).toBe(253);
    const longSeqs = cloud.applied.filter((a) => a.startsWith('long:')).map((a) => Number(a.split(':')[1]));
    expect(longSeqs).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(cloud.batches.every((b) => b.length <= 100)).toBe(true);
    expect(cloud.maxInFlight).toBe(2);
    expect(cloud.overlaps).toEqual([]);
    expect(outbox.size()).toBe(0);
  });

  it('a refused event blocks only its job; the skipped ones wait without an attempt counted', async () => {
    for (const kind of ['received', 'printing', 'completed'] as const) outbox.add('a', { kind });
    outbox.add('b', { kind: 'received' });
    outbox.add('b', { kind: 'completed' });
    cloud.refuse.set('a:2', {
      status: 409,
      error: 'conflict',
      message: 'job a is held by another connector',
    });
    expect(await flush()).toBe(3);
    expect(cloud.applied).toEqual(['a:1', 'b:1', 'b:2']);
    expect(outbox.pendingFor('a').map((r) => [r.event.seq, r.attempts])).toEqual([
      [2, 1],
      [3, 0],
    ]);
    const posts = cloud.batches.length;
    expect(await flush()).toBe(0);
    expect(cloud.batches).toHaveLength(posts);
    cloud.refuse.clear();
    clock.advance(1000);
    expect(await flush()).toBe(2);
    expect(cloud.applied).toEqual(['a:1', 'b:1', 'b:2', 'a:2', 'a:3']);
    expect(outbox.size()).toBe(0);
  });

  it('a job the cloud answers 404 or 410 for loses its undelivered events, logged once, and is never re-sent', async () => {
    for (const kind of ['received', 'downloading', 'failed'] as const) outbox.add('gone', { kind });
    outbox.add('deleted', { kind: 'received' });
    outbox.add('kept', { kind: 'received' });
    cloud.refuse.set('gone:1', { status: 404, error: 'not_found', message: 'job gone not found' });
    cloud.refuse.set('deleted:1', { status: 410, error: 'gone', message: 'job deleted' });
    const warnings: string[] = [];
    const logger = silentLogger();
    logger.warn = ((_fields: unknown, message: string) => {
      warnings.push(message);
    }) as unknown as typeof logger.warn;
    sender = new OutboxSender(outbox, cloud.post, clock, logger);
    expect(await flush()).toBe(1);
    expect(cloud.applied).toEqual(['kept:1']);
    expect(outbox.pendingFor('gone')).toEqual([]);
    expect(outbox.pendingFor('deleted')).toEqual([]);
    expect(warnings.filter((w) => w.includes('no longer knows this job'))).toHaveLength(2);
    const posts = cloud.batches.length;
    clock.advance(60_000);
    expect(await flush()).toBe(0);
    expect(cloud.batches).toHaveLength(posts);
  });

  it('a whole-batch failure counts an attempt for every event and retries with backoff, dropping nothing', async () => {
    cloud.up = false;
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'printing' });
    outbox.add('b', { kind: 'received' });
    expect(await flush()).toBe(0);
    expect([...outbox.pendingFor('a'), ...outbox.pendingFor('b')].map((r) => r.attempts)).toEqual([1, 1, 1]);
    expect(await flush()).toBe(0);
    expect(cloud.batches).toHaveLength(1);
    clock.advance(1000);
    expect(await flush()).toBe(0);
    expect(outbox.nextDueAt()! - clock.now()).toBe(2000);
    cloud.up = true;
    clock.advance(1999);
    expect(await flush()).toBe(0);
    clock.advance(1);
    expect(await flush()).toBe(3);
    expect(cloud.applied).toEqual(['a:1', 'a:2', 'b:1']);
    expect(outbox.size()).toBe(0);
  });

  it('honours the Retry-After of a failed batch', async () => {
    cloud.up = false;
    cloud.retryAfterMs = 30_000;
    outbox.add('a', { kind: 'received' });
    await flush();
    expect(outbox.nextDueAt()! - clock.now()).toBe(30_000);
  });

  it('counts a skip without a refused predecessor as a failure, so it cannot spin', async () => {
    outbox.add('a', { kind: 'received' });
    const skipAll: PostEvents = async (items) =>
      items.map((i) => ({ event_id: i.event.event_id, status: 409, error: 'skipped', message: '?' }));
    sender = new OutboxSender(outbox, skipAll, clock, silentLogger());
    expect(await flush()).toBe(0);
    expect(outbox.pendingFor('a')[0]!.attempts).toBe(1);
    expect(outbox.nextDueAt()).toBeGreaterThan(clock.now());
  });

  it('stop() during a batch leaves its events untouched for the next start', async () => {
    outbox.add('a', { kind: 'received' });
    let started: () => void = () => {};
    const posted = new Promise<void>((r) => {
      started = r;
    });
    const hang: PostEvents = (_items, signal) =>
      new Promise((_resolve, reject) => {
        started();
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      });
    sender = new OutboxSender(outbox, hang, clock, silentLogger());
    sender.start();
    await posted;
    await sender.stop();
    expect(outbox.pendingFor('a').map((r) => [r.event.seq, r.attempts])).toEqual([[1, 0]]);
  });

  it('runs in the background and delivers events added later after notify()', async () => {
    sender.start();
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'completed' });
    sender.notify();
    await expect.poll(() => cloud.applied).toEqual(['a:1', 'a:2']);
    await sender.stop();
    expect(outbox.size()).toBe(0);
  });

  it('lets events that arrive moments apart after a wake-up share one request', async () => {
    // Fake timers: the 2 ms gaps, the 30 ms linger and the 2 ms final linger are exact, however busy the machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const lingering = new OutboxSender(outbox, cloud.post, clock, silentLogger(), 5000, 30, 2);
      lingering.start();
      await vi.advanceTimersByTimeAsync(5);
      for (const [job, kind] of [
        ['a', 'downloading'],
        ['b', 'downloading'],
        ['a', 'printing'],
        ['a', 'completed'],
      ] as const) {
        outbox.add(job, { kind });
        lingering.notify();
        await vi.advanceTimersByTimeAsync(2);
      }
      expect(cloud.batches).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(30);
      // The fake cloud answers after a (real) setImmediate.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(cloud.applied).toEqual(['a:1', 'a:2', 'a:3', 'b:1']);
      expect(cloud.batches).toHaveLength(1);
      const stopped = lingering.stop();
      await vi.advanceTimersByTimeAsync(0);
      await stopped;
    } finally {
      vi.useRealTimers();
    }
  });

  it('an urgent notify (a final event) cuts the linger short', async () => {
    // A one-minute linger: only the urgent notify can let the event out while the test runs.
    const lingering = new OutboxSender(outbox, cloud.post, clock, silentLogger(), 5000, 60_000);
    lingering.start();
    outbox.add('a', { kind: 'printing' });
    lingering.notify();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cloud.batches).toHaveLength(0);
    outbox.add('a', { kind: 'completed' });
    lingering.notify({ urgent: true });
    await expect.poll(() => cloud.applied).toEqual(['a:1', 'a:2']);
    expect(cloud.batches).toHaveLength(1);
    await lingering.stop();
  });

  it('final events that come together share one request after the short final linger, never the long one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // A one-minute linger for events that are not final, 5 ms once a final one is pending.
      const lingering = new OutboxSender(outbox, cloud.post, clock, silentLogger(), 5000, 60_000, 5);
      lingering.start();
      await vi.advanceTimersByTimeAsync(1);
      outbox.add('a', { kind: 'printing' });
      outbox.add('a', { kind: 'completed' });
      lingering.notify({ urgent: true });
      await vi.advanceTimersByTimeAsync(2);
      outbox.add('b', { kind: 'completed' });
      lingering.notify({ urgent: true });
      expect(cloud.batches).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(3);
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(cloud.applied).toEqual(['a:1', 'a:2', 'b:1']);
      expect(cloud.batches).toHaveLength(1);
      const stopped = lingering.stop();
      await vi.advanceTimersByTimeAsync(0);
      await stopped;
    } finally {
      vi.useRealTimers();
    }
  });

  it('an event added while a batch is in flight lingers instead of going in a request of its own', async () => {
    let lingering: OutboxSender | undefined;
    let calls = 0;
    const post: PostEvents = async (items, signal) => {
      if (calls++ === 0) {
        outbox.add('b', { kind: 'received' });
        lingering?.notify();
      }
      return cloud.post(items, signal);
    };
    lingering = new OutboxSender(outbox, post, clock, silentLogger(), 5000, 60_000, 0);
    lingering.start();
    outbox.add('a', { kind: 'completed' });
    lingering.notify({ urgent: true });
    await expect.poll(() => cloud.applied).toEqual(['a:1']);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(cloud.batches).toHaveLength(1);
    outbox.add('b', { kind: 'completed' });
    lingering.notify({ urgent: true });
    await expect.poll(() => cloud.applied).toEqual(['a:1', 'b:1', 'b:2']);
    expect(cloud.batches).toHaveLength(2);
    await lingering.stop();
  });

  it('stop() ends a linger at once and leaves nothing undelivered that was acknowledged', async () => {
    const lingering = new OutboxSender(outbox, cloud.post, clock, silentLogger(), 5000, 60_000);
    lingering.start();
    outbox.add('a', { kind: 'received' });
    lingering.notify();
    // The linger is a minute, longer than the test may run: stop() must cut it short.
    await lingering.stop();
    expect(outbox.size() + cloud.applied.length).toBe(1);
  });
});
