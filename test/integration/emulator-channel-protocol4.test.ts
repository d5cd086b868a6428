/**
 * Connector protocol 4 at the emulator, over a raw WebSocket: the hello of an agent asking 4, a
 * claim carrying the job's first events (claimed and applied together, one result per event, a
 * refused event rolling back only itself with the later ones skipped, a repeated claim acknowledged
 * by event_id), malformed events refused whole naming `events` (nothing claimed), a refused claim
 * applying none, and a channel of 3 ignoring a claim's events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorContext } from '../../src/emulator/context.js';
import type { AgentMessage, JobEvent } from '../../src/protocol/connector-channel.js';
import { type ConnectorRig, startConnectorRig } from '../support/connector-rig.js';
import { ofType, openChannel } from '../support/raw-channel.js';
import { call, type Harness, registration } from './emulator-harness.js';

const document = Buffer.from('protocol 4 document\n');

describe('connector protocol 4 at the emulator', () => {
  let h: Harness;
  let ctx: EmulatorContext;
  let token: string;
  let connectorId: string;
  let printerId: string;
  let rig: ConnectorRig;
  let counter = 0;

  beforeAll(async () => {
    rig = await startConnectorRig({ serial: 'P4-1', name: 'Four', printer: 'Protocol 4 printer' });
    ({ h, ctx, token, connectorId, printerId } = rig);
  });
  afterAll(async () => {
    await rig.close();
  });

  const event = (kind: JobEvent['kind'], seq: number): JobEvent => ({
    event_id: `p4-ev-${++counter}`,
    seq,
    kind,
    at: new Date(h.clock.now()).toISOString(),
  });

  async function channelOf(protocol: number, hostId = connectorId) {
    const channel = await openChannel(h, token, `?protocol=${protocol}`, hostId);
    await channel.waitFor(ofType('hello'));
    const claim = async (claimId: string, jobId: string, events?: unknown) => {
      channel.send({ type: 'claim', claim_id: claimId, job_id: jobId, events } as AgentMessage);
      const i = await channel.waitFor(
        (f) => f.message?.type === 'claim_result' && f.message.claim_id === claimId,
      );
      return channel.frames[i]?.message;
    };
    const close = async () => {
      channel.socket.close();
      await channel.closed;
    };
    return { channel, claim, close };
  }

  it('speaks 4 when asked; the claim applies its events with it and answers their results', async () => {
    const four = await channelOf(4);
    expect(four.channel.frames[0]?.message).toMatchObject({ type: 'hello', protocol: 4 });
    const jobId = rig.newJob(document);
    const received = event('received', 1);
    const downloading = event('downloading', 2);
    expect(await four.claim('c1', jobId, [received, downloading])).toEqual({
      type: 'claim_result',
      claim_id: 'c1',
      job_id: jobId,
      status: 200,
      events: [
        { event_id: received.event_id, status: 204 },
        { event_id: downloading.event_id, status: 204 },
      ],
    });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'downloading', claimedBy: connectorId });
    // The same claim again (its answer was lost): acknowledged, nothing applied twice.
    expect(await four.claim('c2', jobId, [received, downloading])).toMatchObject({
      status: 200,
      events: [{ status: 204 }, { status: 204 }],
    });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'downloading' });
    await four.close();
  });

  it('answers a refused event with its reason and skips the later ones; the claim and the earlier ones stay', async () => {
    const four = await channelOf(4);
    const jobId = rig.newJob(document);
    const received = event('received', 1);
    const bad = { ...event('printing', 2), kind: 'exploded' };
    const later = event('completed', 3);
    const answer = await four.claim('c3', jobId, [received, bad, later]);
    expect(answer).toMatchObject({
      status: 200,
      events: [
        { event_id: received.event_id, status: 204 },
        { event_id: bad.event_id, status: 400, field: 'events[1].kind' },
        { event_id: later.event_id, status: 409, error: 'skipped' },
      ],
    });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'received', claimedBy: connectorId });
    await four.close();
  });

  it('refuses malformed events whole, naming events, and claims nothing', async () => {
    const four = await channelOf(4);
    const jobId = rig.newJob(document);
    for (const [i, events] of [
      [],
      'received',
      [1],
      Array.from({ length: 101 }, (_, k) => event('progress', k + 1)),
    ].entries())
      expect(await four.claim(`bad-${i}`, jobId, events)).toMatchObject({
        status: 400,
        field: 'events',
        message: expect.stringContaining('1 to 100 event objects'),
      });
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'pending', claimedBy: null });
    await four.close();
  });

  it('applies none of a refused claim events, and a channel of 3 ignores them', async () => {
    const jobId = rig.newJob(document);
    const secondId = (
      await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('P4-2', 'Other'))
    ).body.id;
    const four = await channelOf(4);
    expect(await four.claim('c4', jobId)).toMatchObject({ status: 200 });
    await four.close();
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, { connector_id: secondId });
    try {
      const other = await channelOf(4, secondId);
      const refused = await other.claim('c5', jobId, [event('received', 1)]);
      expect(refused).toMatchObject({ status: 409, error: 'conflict' });
      expect(refused).not.toHaveProperty('events');
      await other.close();
    } finally {
      await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, {
        connector_id: connectorId,
      });
    }
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
    const three = await channelOf(3);
    const answer = await three.claim('c6', jobId, [event('received', 1)]);
    expect(answer).toMatchObject({ status: 200 });
    expect(answer).not.toHaveProperty('events');
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed' });
    await three.close();
  });
});
