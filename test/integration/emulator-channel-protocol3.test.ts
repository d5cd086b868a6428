/**
 * Connector protocol 3 at the emulator, over a raw WebSocket: negotiation (`?protocol=3`, an
 * agent that asks nothing gets 2, an emulator of protocol 2 answers 2), inline documents after
 * the offer (only on protocol 3 and up to the configured size), claims and event batches on the
 * channel with the REST routes' rules and results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorContext } from '../../src/emulator/context.js';
import type { AgentMessage, JobEvent } from '../../src/protocol/connector-channel.js';
import { type ConnectorRig, startConnectorRig } from '../support/connector-rig.js';
import { ofType, openChannel } from '../support/raw-channel.js';
import { call, type Harness, registration } from './emulator-harness.js';

/** The emulator's inline limit in these tests: the small document fits, the large one does not. */
const INLINE_LIMIT = 4096;
const small = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 251));
const large = Buffer.alloc(INLINE_LIMIT + 1, 9);

describe('connector protocol 3 at the emulator', () => {
  let h: Harness;
  let ctx: EmulatorContext;
  let token: string;
  let connectorId: string;
  let printerId: string;
  let orgId: string;
  let rig: ConnectorRig;
  let counter = 0;
  let newJob: ConnectorRig['newJob'];

  beforeAll(async () => {
    rig = await startConnectorRig(
      { serial: 'P3-1', name: 'Three', printer: 'Protocol 3 printer' },
      { connectorChannel: { inlineDocumentBytes: INLINE_LIMIT } },
    );
    ({ h, ctx, token, connectorId, printerId, orgId, newJob } = rig);
  });
  afterAll(async () => {
    await rig.close();
  });

  const event = (kind: JobEvent['kind'], seq: number): JobEvent => ({
    event_id: `p3-ev-${++counter}`,
    seq,
    kind,
    at: new Date(h.clock.now()).toISOString(),
  });

  it('speaks 3 when asked, 2 when not asked; a bad protocol closes with 4400 naming it', async () => {
    const three = await openChannel(h, token, '?protocol=3');
    await three.waitFor(ofType('hello'));
    expect(three.frames[0]?.message).toMatchObject({ type: 'hello', protocol: 3 });
    three.socket.close();
    await three.closed;
    const unasked = await openChannel(h, token);
    await unasked.waitFor(ofType('hello'));
    expect(unasked.frames[0]?.message).toMatchObject({ type: 'hello', protocol: 2 });
    unasked.socket.close();
    await unasked.closed;
    const bad = await openChannel(h, token, '?protocol=three');
    const closed = await bad.closed;
    expect(closed.code).toBe(4400);
    expect(closed.reason).toMatch(/^protocol must be a whole number/);
  });

  it('sends a small document inline right after its offer on protocol 3, a large one not', async () => {
    const channel = await openChannel(h, token, '?protocol=3');
    await channel.waitFor(ofType('hello'));
    const smallJob = await newJob(small);
    const at = await channel.waitFor(
      (f) => f.message?.type === 'job.offer' && f.message.job.job_id === smallJob,
    );
    expect(channel.frames[at]?.message).toMatchObject({ inline: true });
    await channel.waitFor((f) => f.binary !== undefined, at + 1);
    expect(channel.frames[at + 1]?.binary?.equals(small)).toBe(true);
    const largeJob = await newJob(large);
    const next = await channel.waitFor(
      (f) => f.message?.type === 'job.offer' && f.message.job.job_id === largeJob,
    );
    expect(channel.frames[next]?.message).not.toHaveProperty('inline');
    channel.socket.close();
    await channel.closed;
    // A channel of protocol 2 (an older agent) never gets a binary frame: pending offers are plain.
    const older = await openChannel(h, token);
    await older.waitFor((f) => f.message?.type === 'job.offer' && f.message.job.job_id === smallJob);
    expect(older.frames.filter((f) => f.binary)).toEqual([]);
    expect(older.frames.filter((f) => f.message && 'inline' in f.message)).toEqual([]);
    older.socket.close();
    await older.closed;
    ctx.jobs.cancel(orgId, smallJob);
    ctx.jobs.cancel(orgId, largeJob);
  });

  it('claims on the channel: 200 for the caller (again too), 409 for another connector, 404 unknown', async () => {
    const jobId = await newJob(small);
    const channel = await openChannel(h, token, '?protocol=3', connectorId);
    await channel.waitFor(ofType('hello'));
    const claim = async (claimId: string, job: string, socket = channel) => {
      socket.send({ type: 'claim', claim_id: claimId, job_id: job });
      const i = await socket.waitFor(
        (f) => f.message?.type === 'claim_result' && f.message.claim_id === claimId,
      );
      return socket.frames[i]?.message;
    };
    expect(await claim('c1', jobId)).toEqual({
      type: 'claim_result',
      claim_id: 'c1',
      job_id: jobId,
      status: 200,
    });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
    expect(await claim('c2', jobId)).toMatchObject({ status: 200 });
    expect(await claim('c3', 'no-such-job')).toMatchObject({ status: 404, error: 'not_found' });
    // The printer moves to a second connector: its claim of the job held by the first is refused.
    const secondId = (
      await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('P3-2', 'Other'))
    ).body.id;
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, { connector_id: secondId });
    try {
      const other = await openChannel(h, token, '?protocol=3', secondId);
      await other.waitFor(ofType('hello'));
      expect(other.frames[0]?.message).toMatchObject({ connector_id: secondId });
      expect(await claim('c4', jobId, other)).toMatchObject({ status: 409, error: 'conflict' });
      other.socket.close();
      await other.closed;
    } finally {
      await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, {
        connector_id: connectorId,
      });
      ctx.jobs.cancel(orgId, jobId);
    }
    channel.socket.close();
    await channel.closed;
  });

  it('takes event batches on the channel: one result per event, the batch claims, a bad envelope names events', async () => {
    const jobId = await newJob(small);
    const channel = await openChannel(h, token, '?protocol=3', connectorId);
    await channel.waitFor(ofType('hello'));
    const batch = async (batchId: string, events: unknown) => {
      channel.send({ type: 'events', batch_id: batchId, events } as AgentMessage);
      const i = await channel.waitFor(
        (f) => f.message?.type === 'events_result' && f.message.batch_id === batchId,
      );
      return channel.frames[i]?.message;
    };
    const received = event('received', 1);
    const answer = await batch('b1', [
      { job_id: jobId, event: received },
      { job_id: 'no-such-job', event: event('received', 1) },
    ]);
    expect(answer).toMatchObject({
      type: 'events_result',
      batch_id: 'b1',
      results: [
        { event_id: received.event_id, status: 204 },
        { status: 404, error: 'not_found' },
      ],
    });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'received', claimedBy: connectorId });
    // The same event again (a batch sent again after a cut channel) is acknowledged and ignored.
    expect(await batch('b2', [{ job_id: jobId, event: received }])).toMatchObject({
      results: [{ event_id: received.event_id, status: 204 }],
    });
    expect(await batch('b3', [])).toMatchObject({
      error: { status: 400, field: 'events' },
    });
    const done = event('completed', 2);
    expect(await batch('b4', [{ job_id: jobId, event: done }])).toMatchObject({ results: [{ status: 204 }] });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'completed' });
    channel.socket.close();
    await channel.closed;
  });
});

describe('an emulator of protocol 2 and an agent asking for 3', () => {
  it('answers hello with 2, sends no inline document and ignores channel claims and events', async () => {
    const rig = await startConnectorRig(
      { serial: 'P2-1', name: 'Two', printer: 'Protocol 2 printer' },
      { connectorChannel: { maxProtocol: 2 } },
    );
    const { ctx } = rig;
    try {
      const channel = await openChannel(rig.h, rig.token, '?protocol=3');
      await channel.waitFor(ofType('hello'));
      expect(channel.frames[0]?.message).toMatchObject({ protocol: 2 });
      const jobId = rig.newJob(small, { name: 'p2.pdf' });
      await channel.waitFor(ofType('job.offer'));
      channel.send({ type: 'claim', claim_id: 'x1', job_id: jobId });
      // The server handles a socket's frames in order and a claim at once: by the time it has
      // answered the close that follows, a channel of protocol 3 would have claimed the job.
      channel.socket.close();
      await channel.closed;
      expect(channel.frames.filter((f) => f.binary || f.message?.type === 'claim_result')).toEqual([]);
      expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'pending', claimedBy: null });
    } finally {
      await rig.close();
    }
  });
});
