/**
 * Receivers that never answer hold up only their own endpoints: each endpoint has its own
 * connections, an endpoint with nothing in flight always gets a turn however many deliveries
 * other tenants' stuck receivers hold, the answer deadline counts from the start of a delivery
 * on the emulator's clock, and an endpoint's connection pool closes when it changes or idles.
 * Real HTTPS receivers with a private CA: one that reads each request and never answers, one
 * that answers 200.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { EmulatorContext } from '../../src/emulator/context.js';
import { OutboundAddressPolicy } from '../../src/emulator/http/outbound-address-policy.js';
import { newEventId } from '../../src/emulator/webhooks/webhook-publisher.js';
import { POOL_IDLE_MS, WebhookSender } from '../../src/emulator/webhooks/webhook-sender.js';
import { ManualClock } from '../../src/lib/clock.js';
import {
  answer,
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
  type TestCertificates,
} from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { DEMO, type Harness, startHarness } from './emulator-harness.js';

const haveOpenssl = peersAvailable('openssl');
/** Far longer than any test runs: only the emulator's clock can make it pass. */
const DEADLINE_MS = 10 * 60_000;

describe.runIf(haveOpenssl)('stuck webhook receivers', () => {
  let certs: TestCertificates;
  let h: Harness | undefined;
  const receivers: HttpsReceiver[] = [];
  beforeAll(async () => {
    certs = await makeTestCertificates();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(async () => certs?.remove());

  const receiver = async (behaviour: Parameters<typeof startHttpsReceiver>[1]) => {
    const r = await startHttpsReceiver(certs, behaviour);
    receivers.push(r);
    return r;
  };
  const start = async (maxInFlight?: number) => {
    const webhooks = { extraCaPem: certs.caPem, timeoutMs: DEADLINE_MS, pollMs: 50 };
    h = await startHarness({ webhooks: maxInFlight === undefined ? webhooks : { ...webhooks, maxInFlight } });
    return h.emulator.app.emulator;
  };
  const orgId = (ctx: EmulatorContext, name: string) => ctx.store.organizations.findByName(name)!.id;
  const endpoint = (ctx: EmulatorContext, org: string, url: string) =>
    ctx.webhooks.create(org, { name: url, url }).endpoint_id as string;
  /** Queues `count` events for the endpoints, as finishing jobs do. */
  const queue = (ctx: EmulatorContext, endpointIds: string[], count: number) => {
    for (let i = 0; i < count; i += 1) {
      const eventId = newEventId();
      const now = h!.clock.now();
      const body = JSON.stringify({ event_id: eventId, topic: 'printjob_succeeded', n: i });
      ctx.store.transaction(() =>
        ctx.store.webhookDeliveries.enqueue(
          { eventId, topic: 'printjob_succeeded', createdAt: now, body },
          endpointIds,
          now,
        ),
      );
    }
  };
  const failedCount = (ctx: EmulatorContext, org: string, ids: string[]) =>
    ids.reduce((sum, id) => sum + ctx.webhooks.events(org, id, [], 100, 0).count, 0);

  it("serves another tenant's healthy endpoint while 20 stuck endpoints on one host hold the limit", async () => {
    const ctx = await start(40);
    const stuck = await receiver(() => 'stall');
    const healthy = await receiver(answer(200));
    const demo = orgId(ctx, DEMO.organization);
    const stuckIds = Array.from({ length: 20 }, (_, i) => endpoint(ctx, demo, `${stuck.url}/${i}`));
    queue(ctx, stuckIds, 5);
    // The 20 endpoints reach the receiver over their own connections, 2 each up to the global
    // limit of 40 (one shared pool per host let only 4 through).
    await stuck.waitFor(40);
    const other = orgId(ctx, DEMO.otherOrganization);
    const healthyId = endpoint(ctx, other, healthy.url);
    queue(ctx, [healthyId], 3);
    await healthy.waitFor(3);
    // Nothing of the stuck endpoints ended: the healthy one did not wait for their deadline.
    expect(failedCount(ctx, demo, stuckIds)).toBe(0);
    expect(stuck.requests.length).toBe(40);
  });

  it('counts the deadline from the start of a delivery on the emulator clock', async () => {
    const ctx = await start();
    const stuck = await receiver(() => 'stall');
    const demo = orgId(ctx, DEMO.organization);
    const id = endpoint(ctx, demo, stuck.url);
    queue(ctx, [id], 2);
    await stuck.waitFor(2);
    h!.clock.advance(DEADLINE_MS);
    await ctx.webhooks.drain();
    const failed = ctx.webhooks.events(demo, id, [], 10, 0);
    expect(failed.rows.map((e) => [e.endpoint.status, e.endpoint.error])).toEqual([
      ['pending', 'timeout'],
      ['pending', 'timeout'],
    ]);
  });

  it("closes an endpoint's own pool when the endpoint is released or idles", async () => {
    const healthy = await receiver(answer(200));
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const sender = new WebhookSender({
      extraCaPem: certs.caPem,
      policy: new OutboundAddressPolicy(['127.0.0.1']),
      clock,
    });
    try {
      const url = new URL(healthy.url);
      const sent = await Promise.all([
        sender.send({ url, endpointId: 'a' }, '{}'),
        sender.send({ url, endpointId: 'b' }, '{}'),
      ]);
      expect(sent.map((t) => t.status)).toEqual(['succeeded', 'succeeded']);
      expect(sender.poolCount()).toBe(2);
      sender.release('a');
      expect(sender.poolCount()).toBe(1);
      clock.advance(POOL_IDLE_MS - 1);
      sender.abortOverdue();
      expect(sender.poolCount()).toBe(1);
      clock.advance(1);
      sender.abortOverdue();
      expect(sender.poolCount()).toBe(0);
    } finally {
      await sender.close();
    }
  });
});
