/**
 * Webhook delivery driven by real job events: a connector claims a job and posts its events
 * over HTTP; the final event queues a webhook that the emulator delivers to real HTTPS
 * receivers (private CA trusted by configuration). Covers the event content and headers, data
 * protection, the retry path (500 then 200), timeouts and closed connections, the 3-day and
 * 30-day rules on the injected clock, single retry and retry-all.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorContext } from '../../src/emulator/context.js';
import {
  answer,
  type Behaviour,
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
  type TestCertificates,
} from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { connectorWithPrinter, createJob, finishJob } from './emulator-job-driver.js';
import { call, DEMO, type Harness, passwordToken, startHarness } from './emulator-harness.js';

const haveOpenssl = peersAvailable('openssl');
const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe.runIf(haveOpenssl)('webhook delivery from job events', () => {
  let h: Harness;
  let ctx: EmulatorContext;
  let certs: TestCertificates;
  let token: string;
  let connectorId: string;
  let printerId: string;
  const receivers: HttpsReceiver[] = [];

  beforeAll(async () => {
    certs = await makeTestCertificates();
    h = await startHarness({ webhooks: { extraCaPem: certs.caPem, timeoutMs: 1500, pollMs: 50 } });
    ctx = h.emulator.app.emulator;
    token = await passwordToken(h.baseUrl, 'printing printing.connectors webhooks');
    ({ connectorId, printerId } = await connectorWithPrinter(h, token, 'WH-1', {
      connector: 'Webhook hub',
      printer: 'Webhook printer',
    }));
  });
  // Tests move the clock by days: each starts with a token that is valid at the clock's time.
  beforeEach(async () => {
    token = await passwordToken(h.baseUrl, 'printing printing.connectors webhooks');
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h?.close();
    await certs?.remove();
  });

  /** A receiver whose behaviour the test can switch. */
  async function switchable(initial: Behaviour): Promise<HttpsReceiver & { set(b: Behaviour): void }> {
    let current = initial;
    const r = await startHttpsReceiver(certs, (n) => current(n));
    receivers.push(r);
    return Object.assign(r, { set: (b: Behaviour) => (current = b) });
  }

  async function endpoint(url: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
      name: `ep ${url}`,
      url,
      ...extra,
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.endpoint_id;
  }

  /** Runs one job of the rig's printer through the connector's events; its id. */
  async function printJob(outcome: 'completed' | 'failed', pages = 3): Promise<string> {
    const ticket = { copies: 1, duplex: 'long-edge', color: true, paper: { id: 9, name: 'A4' } } as const;
    const jobId = await createJob(h, printerId, { name: 'quarterly.pdf', ticket });
    await finishJob(h, token, jobId, outcome, pages);
    return jobId;
  }

  const failedEvents = async (id: string, query = '') =>
    (await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}/events${query}`, token)).body;
  const disable = (id: string) =>
    call(
      h.baseUrl,
      'PATCH',
      `/webhooks/endpoints/${id}`,
      token,
      { disabled: true },
      { 'content-type': 'application/merge-patch+json' },
    );

  it('delivers printjob_succeeded with the spec content and headers to subscribed, enabled endpoints only', async () => {
    const ok = await switchable(answer(200));
    const failedOnly = await switchable(answer(200));
    const off = await switchable(answer(200));
    const id = await endpoint(ok.url, {
      authentication_scheme: 'basic',
      basic_username: 'hook',
      basic_password: 'hook-pass-1',
    });
    const failedOnlyId = await endpoint(failedOnly.url, { topics: ['printjob_failed'] });
    const offId = await endpoint(off.url, { disabled: true });
    const jobId = await printJob('completed', 4);
    await ok.waitFor(1);
    await ctx.webhooks.drain();
    const got = ok.requests[0]!;
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(got.headers['user-agent']).toBe('PrintRelay-Webhooks/2.0');
    expect(got.headers['authorization']).toBe(`Basic ${Buffer.from('hook:hook-pass-1').toString('base64')}`);
    const admin = ctx.store.users.findByEmail(DEMO.admin.email)!;
    const job = ctx.store.jobs.findById(jobId)!;
    const body = JSON.parse(got.body);
    expect(body).toEqual({
      created: new Date(h.clock.now()).toISOString(),
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      topic: 'printjob_succeeded',
      content: {
        printjob: {
          printjob_id: jobId,
          created: new Date(job.createdAt).toISOString(),
          status: 'succeeded',
          type: 'network',
          color: true,
          connector_id: connectorId,
          connector_name: 'Webhook hub',
          copies: 1,
          duplex: true,
          filename: 'quarterly.pdf',
          paper: 'A4',
          printer_id: printerId,
          printer_name: 'Webhook printer',
          total_printed_pages: 4,
          total_printed_sheets: 2,
          user_email: DEMO.admin.email,
          user_id: admin.id,
          user_name: 'Demo Admin',
        },
      },
    });
    expect([failedOnly.requests.length, off.requests.length]).toEqual([0, 0]);
    expect((await failedEvents(id)).count).toBe(0);
    expect(
      ctx.store.db
        .prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = ?')
        .get(body.event_id),
    ).toEqual({ n: 0 });
    for (const e of [id, failedOnlyId, offId]) await disable(e);
  });

  it('delivers printjob_failed, with the data protection settings applied', async () => {
    const ok = await switchable(answer(204));
    const id = await endpoint(ok.url, { topics: ['printjob_failed'] });
    const settings = { file_name_obfuscated: true, user_email_disabled: true, user_name_disabled: true };
    await call(h.baseUrl, 'PATCH', '/webhooks/settings', token, settings, {
      'content-type': 'application/merge-patch+json',
    });
    const jobId = await printJob('failed');
    await ok.waitFor(1);
    const printjob = JSON.parse(ok.requests[0]!.body).content.printjob;
    expect([printjob.printjob_id, printjob.status, printjob.total_printed_pages]).toEqual([
      jobId,
      'failed',
      0,
    ]);
    expect(printjob.filename).toMatch(/^\d{10}$/);
    expect(Object.keys(printjob)).not.toContain('user_email');
    expect(Object.keys(printjob)).not.toContain('user_name');
    expect(printjob.user_id).toBe(ctx.store.users.findByEmail(DEMO.admin.email)!.id);
    const off = { file_name_obfuscated: false, user_email_disabled: false, user_name_disabled: false };
    await call(h.baseUrl, 'PATCH', '/webhooks/settings', token, off, {
      'content-type': 'application/merge-patch+json',
    });
    await disable(id);
  });

  it('retries a 500 with backoff on the clock and deletes the event once a 2xx comes', async () => {
    const flaky = await switchable((n) => ({ status: n === 0 ? 500 : 200 }));
    const id = await endpoint(flaky.url);
    await printJob('completed');
    await flaky.waitFor(1);
    await ctx.webhooks.drain();
    const first = await failedEvents(id);
    expect(first.count).toBe(1);
    expect(first.results[0].endpoint).toEqual({
      status: 'pending',
      error: 'response_status_code',
      last_attempt: new Date(h.clock.now()).toISOString(),
      response_status_code: 500,
    });
    expect(first.results[0].topic).toBe('printjob_succeeded');
    await ctx.webhooks.drain();
    expect(flaky.requests).toHaveLength(1);
    h.clock.advance(60_000);
    await ctx.webhooks.drain();
    expect(flaky.requests).toHaveLength(2);
    expect(flaky.requests[1]!.body).toBe(flaky.requests[0]!.body);
    expect((await failedEvents(id)).count).toBe(0);
    await disable(id);
  });

  it.each([
    ['a receiver that stalls', 'stall' as const],
    ['a receiver that closes the connection', 'close' as const],
  ])('records %s as timeout and keeps retrying', async (_what, action) => {
    const peer = await switchable(() => action);
    const id = await endpoint(peer.url);
    await printJob('completed');
    await peer.waitFor(1);
    await ctx.webhooks.drain();
    const list = await failedEvents(id);
    expect(list.results.map((e: { endpoint: unknown }) => e.endpoint)).toEqual([
      { status: 'pending', error: 'timeout', last_attempt: new Date(h.clock.now()).toISOString() },
    ]);
    await disable(id);
  });

  it('retries for three days, then marks the event failed; a manual retry answers synchronously', async () => {
    const down = await switchable(answer(502));
    const id = await endpoint(down.url);
    await printJob('completed');
    await down.waitFor(1);
    await ctx.webhooks.drain();
    const start = h.clock.now();
    let rounds = 0;
    const status = () =>
      ctx.store.db.prepare('SELECT status FROM webhook_deliveries WHERE endpoint_id = ?').get(id);
    while ((status() as { status: string }).status === 'pending' && rounds < 40) {
      h.clock.advance(6 * HOUR);
      await ctx.webhooks.drain();
      rounds += 1;
    }
    token = await passwordToken(h.baseUrl, 'webhooks');
    const [event] = (await failedEvents(id)).results;
    expect(event.endpoint.status).toBe('failed');
    expect(Date.parse(event.endpoint.last_attempt)).toBeLessThanOrEqual(start + 3 * DAY);
    const attempts = down.requests.length;
    expect(attempts).toBeGreaterThan(10);
    h.clock.advance(2 * DAY);
    await ctx.webhooks.drain();
    expect(down.requests).toHaveLength(attempts);
    token = await passwordToken(h.baseUrl, 'webhooks');

    const retryPath = `/webhooks/endpoints/${id}/events/${event.event_id}/retry`;
    const again = await call(h.baseUrl, 'PUT', retryPath, token);
    expect(again.body).toEqual({
      status: 'failed',
      error: 'response_status_code',
      response_status_code: 502,
    });
    expect((await failedEvents(id)).results[0].endpoint.status).toBe('failed');
    down.set(answer(200));
    expect((await call(h.baseUrl, 'PUT', retryPath, token)).body).toEqual({ status: 'succeeded' });
    expect(
      (await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}/events/${event.event_id}`, token)).status,
    ).toBe(404);
    await disable(id);
  });

  it('drops failed events 30 days after their first attempt', async () => {
    const down = await switchable(answer(500));
    const id = await endpoint(down.url);
    await printJob('completed');
    await down.waitFor(1);
    await ctx.webhooks.drain();
    const [event] = (await failedEvents(id)).results;
    await disable(id);
    h.clock.advance(30 * DAY - 60_000);
    token = await passwordToken(h.baseUrl, 'webhooks');
    expect(
      (await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}/events/${event.event_id}`, token)).status,
    ).toBe(200);
    h.clock.advance(2 * 60_000);
    expect(
      (await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}/events/${event.event_id}`, token)).status,
    ).toBe(404);
    expect((await failedEvents(id)).count).toBe(0);
  });

  it('lists failed events in the requested order and deletes one or all', async () => {
    const down = await switchable(answer(500));
    const id = await endpoint(down.url);
    for (let i = 0; i < 3; i += 1) {
      await printJob('completed');
      h.clock.advance(1000);
    }
    await down.waitFor(3);
    await ctx.webhooks.drain();
    await disable(id);
    const byCreated = (await failedEvents(id, '?order=-created')).results.map(
      (e: { created: string }) => e.created,
    );
    expect(byCreated).toEqual([...byCreated].sort().reverse());
    const ids = (await failedEvents(id, '?order=event_id')).results.map(
      (e: { event_id: string }) => e.event_id,
    );
    expect(ids).toEqual([...ids].sort());
    const bad = await call(
      h.baseUrl,
      'GET',
      `/webhooks/endpoints/${id}/events?order=created,-created`,
      token,
    );
    expect([bad.status, bad.body.field]).toEqual([400, 'order']);
    expect(
      (await call(h.baseUrl, 'DELETE', `/webhooks/endpoints/${id}/events/${ids[0]}`, token)).status,
    ).toBe(204);
    expect((await failedEvents(id)).count).toBe(2);
    expect((await call(h.baseUrl, 'DELETE', `/webhooks/endpoints/${id}/events`, token)).status).toBe(204);
    expect((await failedEvents(id)).count).toBe(0);
  });

  it('runs one retry-all per endpoint: 409 on a second start, 404 once done, DELETE cancels', async () => {
    const down = await switchable(answer(500));
    const id = await endpoint(down.url);
    await printJob('completed');
    await printJob('failed');
    await down.waitFor(2);
    await ctx.webhooks.drain();
    const retry = `/webhooks/endpoints/${id}/events/retry`;
    expect((await call(h.baseUrl, 'GET', retry, token)).status).toBe(404);
    // Slower than the second PUT below, well inside the 1.5 s deadline.
    down.set(() => ({ status: 200, delayMs: 500 }));
    const started = await call(h.baseUrl, 'PUT', retry, token);
    expect(started.body).toEqual({ created: new Date(h.clock.now()).toISOString() });
    const second = await call(h.baseUrl, 'PUT', retry, token);
    expect([second.status, second.body.error]).toEqual([409, 'conflict']);
    expect((await call(h.baseUrl, 'GET', retry, token)).body).toEqual(started.body);
    await ctx.webhooks.drain();
    expect((await call(h.baseUrl, 'GET', retry, token)).status).toBe(404);
    expect((await failedEvents(id)).count).toBe(0);

    down.set(answer(500));
    await printJob('completed');
    await ctx.webhooks.drain();
    await disable(id);
    expect((await call(h.baseUrl, 'PUT', retry, token)).status).toBe(200);
    expect((await call(h.baseUrl, 'DELETE', retry, token)).status).toBe(204);
    expect((await call(h.baseUrl, 'GET', retry, token)).status).toBe(404);
    expect((await call(h.baseUrl, 'DELETE', retry, token)).status).toBe(404);
    expect((await failedEvents(id)).count).toBe(1);
  });
});
