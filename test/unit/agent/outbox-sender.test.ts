import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxSender } from '../../../src/agent/connector/outbox-sender.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { RetryableError } from '../../../src/lib/errors.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { JobEvent } from '../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { Outbox } from '../../../src/store/outbox.js';

describe('OutboxSender', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
  });
  afterEach(() => db.close());

  it('delivers in order per job across an outage, retrying with backoff and dropping nothing', async () => {
    let cloudUp = false;
    const received: string[] = [];
    const post = async (jobId: string, event: JobEvent) => {
      if (!cloudUp) throw new RetryableError('network', 'ECONNREFUSED');
      received.push(`${jobId}:${event.seq}:${event.kind}`);
    };
    const sender = new OutboxSender(outbox, post, clock, silentLogger());
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'printing' });
    outbox.add('b', { kind: 'received' });
    expect(await sender.flush(new AbortController().signal)).toBe(0);
    expect(await sender.flush(new AbortController().signal)).toBe(0);
    expect(outbox.size()).toBe(3);
    cloudUp = true;
    clock.advance(999);
    expect(await sender.flush(new AbortController().signal)).toBe(0);
    clock.advance(1);
    expect(await sender.flush(new AbortController().signal)).toBe(3);
    expect(received).toEqual(['a:1:received', 'b:1:received', 'a:2:printing']);
    expect(outbox.size()).toBe(0);
  });

  it('runs in the background and delivers an event added later after notify()', async () => {
    const received: number[] = [];
    let resolveDelivered: () => void = () => {};
    const delivered = new Promise<void>((r) => {
      resolveDelivered = r;
    });
    const sender = new OutboxSender(
      outbox,
      async (_jobId, event) => {
        received.push(event.seq);
        if (received.length === 2) resolveDelivered();
      },
      clock,
      silentLogger(),
    );
    sender.start();
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'completed' });
    sender.notify();
    await delivered;
    await sender.stop();
    expect(received).toEqual([1, 2]);
  });
});
