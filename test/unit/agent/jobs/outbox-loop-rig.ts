/**
 * The rig of the OutboxSender loop tests: fake timers (setTimeout and Date, so the clock reads the
 * faked time), an outbox in memory and a cloud that records when each post came and what it
 * carried. Built in beforeEach, closed in afterEach (real timers back, database closed).
 */
import { getEventListeners } from 'node:events';
import { vi } from 'vitest';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import type { Clock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';

export class LoopRig {
  readonly clock: Clock = { now: () => Date.now() };
  readonly t0: number;
  readonly db: AgentDatabase;
  readonly outbox: Outbox;
  /** Each post: when (ms after t0) and what it carried, as `<job>:<seq>`. */
  readonly posts: { at: number; events: string[] }[] = [];
  /** Abort listeners on the loop's signal at each post (the post adds none itself). */
  readonly listenersAtPost: number[] = [];
  /** false: every post fails as a lost request. */
  up = true;

  constructor() {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    this.t0 = Date.now();
    this.db = openAgentDatabase(':memory:');
    this.outbox = new Outbox(this.db, this.clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
  }

  /** The recording cloud: 204 for every event while up. */
  readonly post: PostEvents = async (items, signal) => {
    this.posts.push({ at: Date.now() - this.t0, events: items.map((i) => `${i.job_id}:${i.event.seq}`) });
    this.listenersAtPost.push(getEventListeners(signal, 'abort').length);
    if (!this.up) throw new RetryableError('network', 'ECONNREFUSED');
    return items.map((i) => ({ event_id: i.event.event_id, status: 204 }));
  };

  /** Moves the fake time to `ms` after t0, running every timer due on the way. */
  at(ms: number): Promise<unknown> {
    return vi.advanceTimersByTimeAsync(this.t0 + ms - Date.now());
  }

  /** A sender posting to the recording cloud with these waits. */
  sender(idleMs: number, lingerMs: number, finalLingerMs: number): OutboxSender {
    return new OutboxSender(
      this.outbox,
      this.post,
      this.clock,
      silentLogger(),
      idleMs,
      lingerMs,
      finalLingerMs,
    );
  }

  /** Stops `sender`, letting the fake timers run what the stop needs. */
  async stopped(sender: OutboxSender): Promise<void> {
    const done = sender.stop();
    await vi.advanceTimersByTimeAsync(0);
    await done;
  }

  close(): void {
    vi.useRealTimers();
    this.db.close();
  }
}
