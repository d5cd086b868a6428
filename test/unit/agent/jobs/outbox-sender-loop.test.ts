/**
 * The waits of OutboxSender's background loop, timed exactly with fake timers: the idle wait, the
 * wait for the next retry, the linger and the final linger, what a notify ends and what it does
 * not, and a backlog that goes on at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { LoopRig } from './outbox-loop-rig.js';

describe('OutboxSender: the background loop', () => {
  let rig: LoopRig;
  beforeEach(() => {
    rig = new LoopRig();
  });
  afterEach(() => rig.close());

  it('an event added without notify waits the idle time, then the linger and the final linger', async () => {
    const s = rig.sender(1000, 30, 2);
    s.start();
    await rig.at(0);
    rig.outbox.add('a', { kind: 'received' });
    await rig.at(1031);
    expect(rig.posts).toEqual([]);
    await rig.at(1032);
    expect(rig.posts).toEqual([{ at: 1032, events: ['a:1'] }]);
    // After a notified round the next one again waits the idle time, not just the lingers.
    rig.outbox.add('b', { kind: 'received' });
    s.notify();
    await rig.at(1064);
    expect(rig.posts.map((p) => p.at)).toEqual([1032, 1064]);
    rig.outbox.add('c', { kind: 'received' });
    await rig.at(1064 + 1031);
    expect(rig.posts).toHaveLength(2);
    await rig.at(1064 + 1032);
    expect(rig.posts[2]).toEqual({ at: 1064 + 1032, events: ['c:1'] });
    await rig.stopped(s);
  });

  it('waits for the next retry when it comes before the idle time is up, then lingers', async () => {
    rig.up = false;
    rig.outbox.add('a', { kind: 'received' });
    const s = rig.sender(5000, 30, 2);
    s.start();
    await rig.at(0);
    expect(rig.posts.map((p) => p.at)).toEqual([0]);
    rig.up = true;
    // The retry is due at 1000: 1000 + 30 + 2.
    await rig.at(1031);
    expect(rig.posts).toHaveLength(1);
    await rig.at(1032);
    expect(rig.posts.map((p) => p.at)).toEqual([0, 1032]);
    expect(rig.outbox.size()).toBe(0);
    await rig.stopped(s);
  });

  it('a retry already overdue when the loop looks goes after the lingers only', async () => {
    rig.up = false;
    rig.outbox.add('a', { kind: 'received' });
    // A slow failing post: the retry is overdue by the time the round ends.
    let slow = true;
    const slowPost: PostEvents = async (items, signal) => {
      if (slow) {
        slow = false;
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
      return rig.post(items, signal);
    };
    const s = new OutboxSender(rig.outbox, slowPost, rig.clock, silentLogger(), 5000, 30, 2);
    s.start();
    await rig.at(3000);
    expect(rig.posts.map((p) => p.at)).toEqual([3000]);
    rig.up = true;
    // Failed at 3000: due at 4000; the loop waits 1000, 30 and 2.
    await rig.at(4031);
    expect(rig.posts).toHaveLength(1);
    await rig.at(4032);
    expect(rig.posts.map((p) => p.at)).toEqual([3000, 4032]);
    await rig.stopped(s);
  });

  it('a notify ends the idle wait; the linger follows', async () => {
    const s = rig.sender(5000, 30, 2);
    s.start();
    await rig.at(10);
    rig.outbox.add('a', { kind: 'received' });
    s.notify();
    await rig.at(41);
    expect(rig.posts).toEqual([]);
    await rig.at(42);
    expect(rig.posts).toEqual([{ at: 42, events: ['a:1'] }]);
    await rig.stopped(s);
  });

  it('an urgent notify in the idle wait skips the linger: only the final linger is waited', async () => {
    const s = rig.sender(5000, 60_000, 5);
    s.start();
    await rig.at(10);
    rig.outbox.add('a', { kind: 'completed' });
    s.notify({ urgent: true });
    await rig.at(14);
    expect(rig.posts).toEqual([]);
    await rig.at(15);
    expect(rig.posts).toEqual([{ at: 15, events: ['a:1'] }]);
    // The next, not urgent, event lingers again in full.
    rig.outbox.add('b', { kind: 'received' });
    s.notify();
    await rig.at(15 + 60_004);
    expect(rig.posts).toHaveLength(1);
    await rig.at(15 + 60_005);
    expect(rig.posts[1]).toEqual({ at: 15 + 60_005, events: ['b:1'] });
    await rig.stopped(s);
  });

  it('no notify, urgent or not, shortens the final linger', async () => {
    const s = rig.sender(5000, 30, 20);
    s.start();
    await rig.at(10);
    rig.outbox.add('a', { kind: 'received' });
    s.notify();
    // Woken at 10, linger to 40, final linger to 60.
    await rig.at(45);
    s.notify();
    s.notify({ urgent: true });
    await rig.at(59);
    expect(rig.posts).toEqual([]);
    await rig.at(60);
    expect(rig.posts.map((p) => p.at)).toEqual([60]);
    await rig.stopped(s);
  });

  it('a plain notify during the linger does not end it', async () => {
    const s = rig.sender(5000, 30, 2);
    s.start();
    await rig.at(10);
    rig.outbox.add('a', { kind: 'received' });
    s.notify();
    await rig.at(20);
    s.notify();
    await rig.at(41);
    expect(rig.posts).toEqual([]);
    await rig.at(42);
    expect(rig.posts.map((p) => p.at)).toEqual([42]);
    await rig.stopped(s);
  });

  it('with no linger and no final linger a notified event goes at once', async () => {
    const s = rig.sender(5000, 0, 0);
    s.start();
    await rig.at(10);
    rig.outbox.add('a', { kind: 'received' });
    s.notify();
    await rig.at(10);
    expect(rig.posts).toEqual([{ at: 10, events: ['a:1'] }]);
    await rig.stopped(s);
  });

  it('a backlog larger than one request goes on at once, batch after batch, without waiting', async () => {
    for (let i = 0; i < 250; i++) rig.outbox.add('long', { kind: 'progress', pages_printed: i });
    const s = rig.sender(5000, 60_000, 5);
    s.start();
    await rig.at(0);
    expect(rig.posts.map((p) => [p.at, p.events.length])).toEqual([
      [0, 100],
      [0, 100],
      [0, 50],
    ]);
    expect(rig.outbox.size()).toBe(0);
    await rig.stopped(s);
  });

  it('one full batch beside a small one is a backlog too; once it is sent the loop waits again', async () => {
    for (let i = 0; i < 150; i++) rig.outbox.add('long', { kind: 'progress', pages_printed: i });
    rig.outbox.add('late', { kind: 'received' });
    const s = rig.sender(1000, 30, 2);
    s.start();
    await rig.at(0);
    // The first round carries 100 of 'long' (full) and 'late' beside them; the rest goes at once.
    expect(rig.posts.map((p) => [p.at, p.events.length])).toEqual([
      [0, 100],
      [0, 1],
      [0, 50],
    ]);
    rig.outbox.add('next', { kind: 'received' });
    await rig.at(1031);
    expect(rig.posts).toHaveLength(3);
    await rig.at(1032);
    expect(rig.posts).toHaveLength(4);
    await rig.stopped(s);
  });

  it('a full batch that delivered nothing (its job gone) is no backlog: the loop waits before the next', async () => {
    for (let i = 0; i < 100; i++) rig.outbox.add('gone', { kind: 'progress', pages_printed: i });
    const goneThenOk: PostEvents = async (items, signal) => {
      if (items[0]?.job_id !== 'gone') return rig.post(items, signal);
      rig.posts.push({ at: Date.now() - rig.t0, events: items.map((i) => `${i.job_id}:${i.event.seq}`) });
      // Added while the batch is in flight, without a notify: it waits for the next look.
      rig.outbox.add('b', { kind: 'received' });
      return items.map((item, n) =>
        n === 0
          ? { event_id: item.event.event_id, status: 404, error: 'not_found', message: 'no such job' }
          : { event_id: item.event.event_id, status: 409, error: 'skipped', message: 'earlier event failed' },
      );
    };
    const s = new OutboxSender(rig.outbox, goneThenOk, rig.clock, silentLogger(), 5000, 30, 2);
    s.start();
    await rig.at(0);
    expect(rig.posts.map((p) => p.at)).toEqual([0]);
    expect(rig.outbox.pendingFor('gone')).toEqual([]);
    // 'b' was due at once: no idle wait, but the lingers.
    await rig.at(31);
    expect(rig.posts).toHaveLength(1);
    await rig.at(32);
    expect(rig.posts[1]).toEqual({ at: 32, events: ['b:1'] });
    await rig.stopped(s);
  });

  it('with no linger and no final linger, an event notified during a post goes right after it, without a timer', async () => {
    let first = true;
    let s: OutboxSender | undefined;
    const addingPost: PostEvents = async (items, signal) => {
      if (first) {
        first = false;
        rig.outbox.add('b', { kind: 'received' });
        s?.notify();
      }
      return rig.post(items, signal);
    };
    s = new OutboxSender(rig.outbox, addingPost, rig.clock, silentLogger(), 5000, 0, 0);
    rig.outbox.add('a', { kind: 'received' });
    s.start();
    // Only promise jobs and one turn of the event loop: no fake timer runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(rig.posts.map((p) => p.events)).toEqual([['a:1'], ['b:1']]);
    // And a notify in the idle wait also needs no timer.
    rig.outbox.add('c', { kind: 'received' });
    s.notify();
    await new Promise((resolve) => setImmediate(resolve));
    expect(rig.posts.map((p) => p.events)).toEqual([['a:1'], ['b:1'], ['c:1']]);
    await rig.stopped(s);
  });
});
