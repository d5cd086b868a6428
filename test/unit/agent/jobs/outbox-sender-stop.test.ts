/**
 * Stopping and restarting OutboxSender's background loop: stop() ends every wait and a post at
 * once, leaves no timer or abort listener behind, and start() runs the loop again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { LoopRig } from './outbox-loop-rig.js';

describe('OutboxSender: stop and start', () => {
  let rig: LoopRig;
  beforeEach(() => {
    rig = new LoopRig();
  });
  afterEach(() => rig.close());

  it('starts again after stop, and leaves no timer and no abort listener behind', async () => {
    const s = rig.sender(1000, 30, 2);
    s.start();
    for (let round = 0; round < 5; round++) {
      rig.outbox.add(`j${round}`, { kind: 'received' });
      s.notify();
      await rig.at(100 * (round + 1));
    }
    expect(rig.posts).toHaveLength(5);
    // Every wait ended took its listener with it: the post sees none.
    expect(rig.listenersAtPost).toEqual([0, 0, 0, 0, 0]);
    await rig.stopped(s);
    expect(vi.getTimerCount()).toBe(0);
    rig.outbox.add('after', { kind: 'received' });
    s.start();
    await rig.at(600);
    expect(rig.posts.at(-1)?.events).toEqual(['after:1']);
    await rig.stopped(s);
    expect(vi.getTimerCount()).toBe(0);
  });

  for (const [where, after] of [
    ['the linger', 20],
    ['the final linger', 70],
  ] as const) {
    it(`stop() during ${where} returns without waiting it out`, async () => {
      const s = rig.sender(5000, 50, 50);
      s.start();
      await rig.at(10);
      rig.outbox.add('a', { kind: 'received' });
      s.notify();
      await rig.at(after);
      let done = false;
      const stopping = s.stop().then(() => {
        done = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(done).toBe(true);
      await stopping;
      expect(vi.getTimerCount()).toBe(0);
      expect(rig.posts).toEqual([]);
      expect(rig.outbox.size()).toBe(1);
    });
  }

  it('stop() during a post ends the loop as soon as the post gives up, with no wait after it', async () => {
    rig.outbox.add('a', { kind: 'received' });
    let posted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      posted = resolve;
    });
    const hang: PostEvents = (_items, signal) =>
      new Promise((_resolve, reject) => {
        posted();
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      });
    const s = new OutboxSender(rig.outbox, hang, rig.clock, silentLogger(), 60_000, 60_000, 60_000);
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
    expect(rig.outbox.pendingFor('a').map((r) => r.attempts)).toEqual([0]);
  });

  it('stop() during the idle wait returns without waiting it out', async () => {
    const s = rig.sender(60_000, 60_000, 60_000);
    s.start();
    await rig.at(10);
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
