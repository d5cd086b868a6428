/**
 * The claim that carries the job's first events (connector protocol 4, claim-events.ts) with the
 * real OutboxSender and Outbox: the events go in the claim only while the channel speaks 4 and no
 * batch has them; while the claim is out no batch takes them; they leave the outbox only on their
 * results in the claim's answer (one commit), and stay for the next batch on anything else.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChannelClaim, claimWithEvents } from '../../../../src/agent/jobs/claim-events.js';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type {
  ChannelClaimResult,
  JobEvent,
  JobEventBatchItem,
} from '../../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';

describe('a claim carrying the job first events', () => {
  let db: AgentDatabase;
  let outbox: Outbox;
  let posts: JobEventBatchItem[][];
  let sender: OutboxSender;
  const clock = new ManualClock();
  const signal = new AbortController().signal;
  const post: PostEvents = async (items) => {
    posts.push(items);
    return items.map((item) => ({ event_id: item.event.event_id, status: 204 }));
  };
  const accepted = (jobId: string, events?: JobEvent[]): ChannelClaimResult => ({
    type: 'claim_result',
    claim_id: 'c1',
    job_id: jobId,
    status: 200,
    ...(events ? { events: events.map((e) => ({ event_id: e.event_id, status: 204 })) } : {}),
  });

  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
    posts = [];
    sender = new OutboxSender(outbox, post, clock, silentLogger());
    outbox.add('j1', { kind: 'received' });
    outbox.add('j1', { kind: 'downloading' });
  });
  afterEach(() => db.close());

  it('carries the pending events on protocol 4 and removes them on their results, no batch sent', async () => {
    const sent: (JobEvent[] | undefined)[] = [];
    const claim = claimWithEvents(
      sender,
      () => true,
      async (jobId, _s, events) => {
        sent.push(events);
        return accepted(jobId, events);
      },
    );
    const answer = await claim('j1', signal);
    expect(answer.status).toBe(200);
    expect(sent[0]?.map((e) => e.kind)).toEqual(['received', 'downloading']);
    expect(outbox.pendingFor('j1')).toEqual([]);
    expect(await sender.flush(signal)).toBe(0);
    expect(posts).toEqual([]);
  });

  it('carries none below protocol 4; the batch sends them', async () => {
    const sent: (JobEvent[] | undefined)[] = [];
    const claim = claimWithEvents(
      sender,
      () => false,
      async (jobId, _s, events) => {
        sent.push(events);
        return accepted(jobId);
      },
    );
    await claim('j1', signal);
    expect(sent).toEqual([undefined]);
    expect(outbox.pendingFor('j1')).toHaveLength(2);
    expect(await sender.flush(signal)).toBe(2);
  });

  it('keeps every batch off the job while its claim is out, and frees it after the answer', async () => {
    outbox.add('j2', { kind: 'received' });
    let answer: ((result: ChannelClaimResult) => void) | undefined;
    const claim = claimWithEvents(
      sender,
      () => true,
      () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    );
    const claimed = claim('j1', signal);
    // Only j2 goes while j1's claim is out.
    expect(await sender.flush(signal)).toBe(1);
    expect(posts.flat().map((item) => item.job_id)).toEqual(['j2']);
    // An answer without results (a cloud that applied none): the events stay for the next batch.
    answer?.(accepted('j1'));
    await claimed;
    expect(outbox.pendingFor('j1')).toHaveLength(2);
    expect(await sender.flush(signal)).toBe(2);
    expect(posts.at(-1)?.map((item) => `${item.job_id}:${item.event.seq}`)).toEqual(['j1:1', 'j1:2']);
  });

  it('leaves the events in the outbox, no attempt counted, when the claim gets no answer', async () => {
    const claim = claimWithEvents(
      sender,
      () => true,
      async () => {
        throw new RetryableError('network', 'the channel closed before the answer');
      },
    );
    await expect(claim('j1', signal)).rejects.toThrow('channel closed');
    expect(outbox.rowsOf('j1').map((row) => row.attempts)).toEqual([0, 0]);
    expect(await sender.flush(signal)).toBe(2);
  });

  it('leaves the events when the claim is refused (409)', async () => {
    const claim = claimWithEvents(
      sender,
      () => true,
      async (jobId) => ({
        type: 'claim_result',
        claim_id: 'c1',
        job_id: jobId,
        status: 409,
        error: 'conflict',
        message: 'held by another connector',
      }),
    );
    expect((await claim('j1', signal)).status).toBe(409);
    expect(outbox.pendingFor('j1')).toHaveLength(2);
  });

  it('records refused events of the claim as a batch does: a failed attempt with the reason', async () => {
    const claim = claimWithEvents(
      sender,
      () => true,
      async (jobId, _s, events) => ({
        ...accepted(jobId),
        events: (events ?? []).map((e, i) =>
          i === 0
            ? { event_id: e.event_id, status: 400, error: 'validation', message: 'bad kind' }
            : { event_id: e.event_id, status: 409, error: 'skipped', message: 'an earlier event failed' },
        ),
      }),
    );
    await claim('j1', signal);
    expect(outbox.rowsOf('j1').map((row) => [row.attempts, row.lastError])).toEqual([
      [1, '400 validation: bad kind'],
      [0, undefined],
    ]);
  });

  it('carries none for a job whose events are in a batch in flight', async () => {
    let release: (() => void) | undefined;
    const slow = new OutboxSender(
      outbox,
      (items) =>
        new Promise((resolve) => {
          release = () => resolve(items.map((item) => ({ event_id: item.event.event_id, status: 204 })));
        }),
      clock,
      silentLogger(),
    );
    const flushing = slow.flush(signal);
    const sent: (JobEvent[] | undefined)[] = [];
    const claim: ChannelClaim = async (jobId, _s, events) => {
      sent.push(events);
      return accepted(jobId);
    };
    await claimWithEvents(slow, () => true, claim)('j1', signal);
    expect(sent).toEqual([undefined]);
    release?.();
    expect(await flushing).toBe(2);
  });
});
