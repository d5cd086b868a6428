/**
 * The background loop of OutboxSender, timed exactly with fake timers (the clock reads the faked
 * Date): the idle wait, the wait for the next retry, the linger and the final linger, what a
 * notify ends and what it does not, a backlog that goes on at once, restart, and that no timer
 * or abort listener is left behind. Also channelOrRest, which picks the way each batch goes.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { channelOrRest, OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import type { Clock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { JobEventBatchItem } from '../../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';

describe('OutboxSender: the background loop', () => {
  let db: AgentDatabase;
  let outbox: Outbox;
  let t0: number;
  /** Each post: when (ms after t0) and what it carried, as `<job>:<seq>`. */
  let posts: { at: number; events: string[] }[];
  /** Abort listeners on the loop's signal at each post, besides none the post adds itself. */
  let listenersAtPost: number[];
  let up: boolean;
  const clock: Clock = { now: () => Date.now() };
  const post: PostEvents = async (items, signal) => {
    posts.push({ at: Date.now() - t0, events: items.map((i) => `${i.job_id}:${i.event.seq}`) });
    listenersAtPost.push(getEventListeners(signal, 'abort').length);
    if (!up) throw new RetryableError('network', 'ECONNREFUSED');
    return items.map((i) => ({ event_id: i.event.event_id, status: 204 }));
  };
  /** Moves the fake time to `ms` after t0, running every timer due on the way. */
  const at = (ms: number) => vi.advanceTimersByTimeAsync(t0 + ms - Date.now());
  const sender = (idleMs: number, lingerMs: number, finalLingerMs: number) =>
    new OutboxSender(outbox, post, clock, silentLogger(), idleMs, lingerMs, finalLingerMs);
  async function stopped(s: OutboxSender) {
    const done = s.stop();
    await vi.advanceTimersByTimeAsync(0);
    await done;
  }

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    t0 = Date.now();
    db = openAgentDatabase(':memory:');
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
    posts = [];
    listenersAtPost = [];
    up = true;
  });
  afterEach(() => {
    vi.useRealTimers();
    db.close();
  });

  it('an event added without notify waits the idle time, then the linger and the final linger', async () => {
    const s = sender(1000, 30, 2);
    s.start();
    await at(0);
    outbox.add('a', { kind: 'received' });
    await at(1031);
    expect(posts).toEqual([]);
    await at(1032);
    expect(posts).toEqual([{ at: 1032, events: ['a:1'] }]);
    // After a notified round the next one again waits the idle time, not just the lingers.
    outbox.add('b', { kind: 'received' });
    s.notify();
    await at(1064);
    expect(posts.map((p) => p.at)).toEqual([1032, 1064]);
    outbox.add('c', { kind: 'received' });
    await at(1064 + 1031);
    expect(posts).toHaveLength(2);
    await at(1064 + 1032);
    expect(posts[2]).toEqual({ at: 1064 + 1032, events: ['c:1'] });
    await stopped(s);
  });

  it('waits for the next retry when it comes before the idle time is up, then lingers', async () => {
    up = false;
    outbox.add('a', { kind: 'received' });
    const s = sender(5000, 30, 2);
    s.start();
    await at(0);
    expect(posts.map((p) => p.at)).toEqual([0]);
    up = true;
    // The retry is due at 1000: 1000 + 30 + 2.
    await at(1031);
    expect(posts).toHaveLength(1);
    await at(1032);
    expect(posts.map((p) => p.at)).toEqual([0, 1032]);
    expect(outbox.size()).toBe(0);
    await stopped(s);
  });

  it('a retry already overdue when the loop looks goes after the lingers only', async () => {
    up = false;
    outbox.add('a', { kind: 'received' });
    // A slow failing post: the retry is overdue by the time the round ends.
    let slow = true;
    const slowPost: PostEvents = async (items, signal) => {
      if (slow) {
        slow = false;
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
      return post(items, signal);
    };
    const s = new OutboxSender(outbox, slowPost, clock, silentLogger(), 5000, 30, 2);
    s.start();
    await at(3000);
    expect(posts.map((p) => p.at)).toEqual([3000]);
    up = true;
    // Failed at 3000: due at 4000; the loop waits 1000, 30 and 2.
    await at(4031);
    expect(posts).toHaveLength(1);
    await at(4032);
    expect(posts.map((p) => p.at)).toEqual([3000, 4032]);
    await stopped(s);
  });

  it('a notify ends the idle wait; the linger follows', async () => {
    const s = sender(5000, 30, 2);
    s.start();
    await at(10);
    outbox.add('a', { kind: 'received' });
    s.notify();
    await at(41);
    expect(posts).toEqual([]);
    await at(42);
    expect(posts).toEqual([{ at: 42, events: ['a:1'] }]);
    await stopped(s);
  });

  it('an urgent notify in the idle wait skips the linger: only the final linger is waited', async () => {
    const s = sender(5000, 60_000, 5);
    s.start();
    await at(10);
    outbox.add('a', { kind: 'completed' });
    s.notify({ urgent: true });
    await at(14);
    expect(posts).toEqual([]);
    await at(15);
    expect(posts).toEqual([{ at: 15, events: ['a:1'] }]);
    // The next, not urgent, event lingers again in full.
    outbox.add('b', { kind: 'received' });
    s.notify();
    await at(15 + 60_004);
    expect(posts).toHaveLength(1);
    await at(15 + 60_005);
    expect(posts[1]).toEqual({ at: 15 + 60_005, events: ['b:1'] });
    await stopped(s);
  });

  it('no notify, urgent or not, shortens the final linger', async () => {
    const s = sender(5000, 30, 20);
    s.start();
    await at(10);
    outbox.add('a', { kind: 'received' });
    s.notify();
    // Woken at 10, linger to 40, final linger to 60.
    await at(45);
    s.notify();
    s.notify({ urgent: true });
    await at(59);
    expect(posts).toEqual([]);
    await at(60);
    expect(posts.map((p) => p.at)).toEqual([60]);
    await stopped(s);
  });

  it('a plain notify during the linger does not end it', async () => {
    const s = sender(5000, 30, 2);
    s.start();
    await at(10);
    outbox.add('a', { kind: 'received' });
    s.notify();
    await at(20);
    s.notify();
    await at(41);
    expect(posts).toEqual([]);
    await at(42);
    expect(posts.map((p) => p.at)).toEqual([42]);
    await stopped(s);
  });

  it('with no linger and no final linger a notified event goes at once', async () => {
    const s = sender(5000, 0, 0);
    s.start();
    await at(10);
    outbox.add('a', { kind: 'received' });
    s.notify();
    await at(10);
    expect(posts).toEqual([{ at: 10, events: ['a:1'] }]);
    await stopped(s);
  });

  it('a backlog larger than one request goes on at once, batch after batch, without waiting', async () => {
    for (let i = 0; i < 250; i++) outbox.add('long', { kind: 'progress', pages_printed: i });
    const s = sender(5000, 60_000, 5);
    s.start();
    await at(0);
    expect(posts.map((p) => [p.at, p.events.length])).toEqual([
      [0, 100],
      [0, 100],
      [0, 50],
    ]);
    expect(outbox.size()).toBe(0);
    await stopped(s);
  });

  it('one full batch beside a small one is a backlog too; once it is sent the loop waits again', async () => {
    for (let i = 0; i < 150; i++) outbox.add('long', { kind: 'progress', pages_printed: i });
    outbox.add('late', { kind: 'received' });
    const s = sender(1000, 30, 2);
    s.start();
    await at(0);
    // The first round carries 100 of 'long' (full) and 'late' beside them; the rest goes at once.
    expect(posts.map((p) => [p.at, p.events.length])).toEqual([
      [0, 100],
      [0, 1],
      [0, 50],
    ]);
    outbox.add('next', { kind: 'received' });
    await at(1031);
    expect(posts).toHaveLength(3);
    await at(1032);
    expect(posts).toHaveLength(4);
    await stopped(s);
  });

  it('a full batch that delivered nothing (its job gone) is no backlog: the loop waits before the next', async () => {
    for (let i = 0; i < 100; i++) outbox.add('gone', { kind: 'progress', pages_printed: i });
    const goneThenOk: PostEvents = async (items, signal) => {
      if (items[0]?.job_id !== 'gone') return post(items, signal);
      posts.push({ at: Date.now() - t0, events: items.map((i) => `${i.job_id}:${i.event.seq}`) });
      // Added while the batch is in flight, without a notify: it waits for the next look.
      outbox.add('b', { kind: 'received' });
      return items.map((item, n) =>
        n === 0
          ? { event_id: item.event.event_id, status: 404, error: 'not_found', message: 'no such job' }
          : { event_id: item.event.event_id, status: 409, error: 'skipped', message: 'earlier event failed' },
      );
    };
    const s = new OutboxSender(outbox, goneThenOk, clock, silentLogger(), 5000, 30, 2);
    s.start();
    await at(0);
    expect(posts.map((p) => p.at)).toEqual([0]);
    expect(outbox.pendingFor('gone')).toEqual([]);
    // 'b' was due at once: no idle wait, but the lingers.
    await at(31);
    expect(posts).toHaveLength(1);
    await at(32);
    expect(posts[1]).toEqual({ at: 32, events: ['b:1'] });
    await stopped(s);
  });

  it('with no linger and no final linger, an event notified during a post goes right after it, without a timer', async () => {
    let first = true;
    let s: OutboxSender | undefined;
    const addingPost: PostEvents = async (items, signal) => {
      if (first) {
        first = false;
        outbox.add('b', { kind: 'received' });
        s?.notify();
      }
      return post(items, signal);
    };
    s = new OutboxSender(outbox, addingPost, clock, silentLogger(), 5000, 0, 0);
    outbox.add('a', { kind: 'received' });
    s.start();
    // Only promise jobs and one turn of the event loop: no fake timer runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(posts.map((p) => p.events)).toEqual([['a:1'], ['b:1']]);
    // And a notify in the idle wait also needs no timer.
    outbox.add('c', { kind: 'received' });
    s.notify();
    await new Promise((resolve) => setImmediate(resolve));
    expect(posts.map((p) => p.events)).toEqual([['a:1'], ['b:1'], ['c:1']]);
    await stopped(s);
  });

  it('starts again after stop, and leaves no timer and no abort listener behind', async () => {
    const s = sender(1000, 30, 2);
    s.start();
    for (let round = 0; round < 5; round++) {
      outbox.add(`j${round}`, { kind: 'received' });
      s.notify();
      await at(100 * (round + 1));
    }
    expect(posts).toHaveLength(5);
    // Every wait ended took its listener with it: the post sees none.
    expect(listenersAtPost).toEqual([0, 0, 0, 0, 0]);
    await stopped(s);
    expect(vi.getTimerCount()).toBe(0);
    outbox.add('after', { kind: 'received' });
    s.start();
    await at(600);
    expect(posts.at(-1)?.events).toEqual(['after:1']);
    await stopped(s);
    expect(vi.getTimerCount()).toBe(0);
  });

  for (const [where, after] of [
    ['the linger', 20],
    ['the final linger', 70],
  ] as const) {
    it(`stop() during ${where} returns without waiting it out`, async () => {
      const s = sender(5000, 50, 50);
      s.start();
      await at(10);
      outbox.add('a', { kind: 'received' });
      s.notify();
      await at(after);
      let done = false;
      const stopping = s.stop().then(() => {
        done = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(done).toBe(true);
      await stopping;
      expect(vi.getTimerCount()).toBe(0);
      expect(posts).toEqual([]);
      expect(outbox.size()).toBe(1);
    });
  }

  it('stop() during a post ends the loop as soon as the post gives up, with no wait after it', async () => {
    outbox.add('a', { kind: 'received' });
    let posted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      posted = resolve;
    });
    const hang: PostEvents = (_items, signal) =>
      new Promise((_resolve, reject) => {
        posted();
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      });
    const s = new OutboxSender(outbox, hang, clock, silentLogger(), 60_000, 60_000, 60_000);
    s.start();
    await started;
    let done = false;
    const stopping = s.stop().then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(true);
    await stopping;
    expect(vi.getTimerCount()).toBe(0);
    expect(outbox.pendingFor('a').map((r) => r.attempts)).toEqual([0]);
  });

  it('stop() during the idle wait returns without waiting it out', async () => {
    const s = sender(60_000, 60_000, 60_000);
    s.start();
    await at(10);
    let done = false;
    const stopping = s.stop().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    await stopping;
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('channelOrRest', () => {
  const items: JobEventBatchItem[] = [];
  const answered = (way: string): PostEvents => {
    const answer: PostEvents = async (batch, signal) => {
      calls.push({ way, batch, signal });
      return [];
    };
    return answer;
  };
  let calls: { way: string; batch: JobEventBatchItem[]; signal: AbortSignal }[] = [];
  beforeEach(() => {
    calls = [];
  });

  it('posts over the channel while it is up, over REST otherwise, asking again for each batch', async () => {
    let up = true;
    const poster = channelOrRest(() => up, answered('channel'), answered('rest'));
    const signal = new AbortController().signal;
    await poster(items, signal);
    up = false;
    await poster(items, signal);
    up = true;
    await poster(items, signal);
    expect(calls.map((c) => c.way)).toEqual(['channel', 'rest', 'channel']);
    expect(calls.every((c) => c.batch === items && c.signal === signal)).toBe(true);
  });
});
