/**
 * The test clock: POST /_emulator/clock moves the emulator's time (never back), so an access
 * token expires, the 24-hour rule closes a local job and a webhook retry goes out at once (the
 * worker is woken, not left to its next poll); GET tells the offset. Only the local developer
 * and organization admins reach it; a start with the sandbox off has no clock route.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TpfmClient } from '../../src/client/tpfm-client.js';
import { ACCESS_TOKEN_TTL_S } from '../../src/emulator/oauth/token-types.js';
import { silentLogger } from '../../src/log/logger.js';
import { startHttpsReceiver, makeTestCertificates } from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { connectorWithPrinter, createJob, finishJob } from './emulator-job-driver.js';
import { call, DEMO, type Harness, passwordToken, startHarness } from './emulator-harness.js';
import { ALICE_CARD, DEVICE_PASSWORD, startTpfmHarness } from './emulator-tpfm-harness.js';

const REMOTE = { 'x-forwarded-for': '203.0.113.9' };
let h: Harness | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
  await h?.close();
  h = undefined;
});

const advance = (base: string, seconds: number, token?: string, headers: Record<string, string> = {}) =>
  call(base, 'POST', '/_emulator/clock', token, { advance_s: seconds }, headers);

describe('the test clock', () => {
  it('tells its offset and moves only forward; a token expires when the clock passes its lifetime', async () => {
    h = await startHarness();
    const start = h.clock.now();
    const read = await call(h.baseUrl, 'GET', '/_emulator/clock', undefined);
    expect(read.body).toEqual({ now: new Date(start).toISOString(), offset_s: 0 });
    const token = await passwordToken(h.baseUrl, 'account');
    expect((await call(h.baseUrl, 'GET', '/v1/users/me/', token)).status).toBe(200);

    const moved = await advance(h.baseUrl, ACCESS_TOKEN_TTL_S + 1);
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({
      now: new Date(start + (ACCESS_TOKEN_TTL_S + 1) * 1000).toISOString(),
      offset_s: ACCESS_TOKEN_TTL_S + 1,
    });
    const expired = await call(h.baseUrl, 'GET', '/v1/users/me/', token);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('invalid_token');

    const back = await advance(h.baseUrl, -5);
    expect(back.status).toBe(400);
    expect(back.body.message).toContain('advance_s');
    const wrong = await call(h.baseUrl, 'POST', '/_emulator/clock', undefined, { advance: 5 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toContain('advance');
    expect((await call(h.baseUrl, 'GET', '/_emulator/clock', undefined)).body.offset_s).toBe(
      ACCESS_TOKEN_TTL_S + 1,
    );
  });

  it('closes a local job by the 24-hour rule once moved a day', async () => {
    const t = await startTpfmHarness();
    h = t;
    const client = new TpfmClient({
      baseUrl: t.baseUrl,
      password: DEVICE_PASSWORD,
      userAgent: 'test clock',
      logger: silentLogger(),
    });
    cleanups.push(() => client.close());
    const id = await client.createLocalJob(ALICE_CARD, { Printer: DEMO.printer.name, Type: 'Copy' });
    const path = `/printing/v1/printers/${t.demoPrinterId}/local_jobs`;
    const stateOf = async () => {
      const admin = await passwordToken(t.baseUrl, 'printing');
      const jobs = (await call(t.baseUrl, 'GET', path, admin)).body.local_jobs as {
        id: string;
        state: string;
      }[];
      return jobs.find((j) => j.id === id)?.state;
    };
    expect(await stateOf()).not.toBe('closed');
    await advance(t.baseUrl, 24 * 3600);
    expect(await stateOf()).toBe('closed');
  });

  it('reaches only the local developer and organization admins', async () => {
    h = await startHarness();
    const admin = await passwordToken(h.baseUrl, 'account');
    const alice = await passwordToken(h.baseUrl, 'account', DEMO.user);
    expect((await advance(h.baseUrl, 1, undefined, REMOTE)).status).toBe(401);
    const refused = await advance(h.baseUrl, 1, alice, REMOTE);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('admin role');
    expect((await call(h.baseUrl, 'GET', '/_emulator/clock', alice, undefined, REMOTE)).status).toBe(403);
    expect((await advance(h.baseUrl, 1, admin, REMOTE)).body.offset_s).toBe(1);
  });

  it('is absent when the sandbox is off', async () => {
    h = await startHarness({ sandbox: { enabled: false } });
    expect((await call(h.baseUrl, 'GET', '/_emulator/clock', undefined)).status).toBe(404);
    expect((await advance(h.baseUrl, 60)).status).toBe(404);
  });
});

describe.runIf(peersAvailable('openssl'))('the test clock and webhook retries', () => {
  it('sends a retry as soon as the clock passes its time, without waiting for the next poll', async () => {
    const certs = await makeTestCertificates();
    cleanups.push(() => certs.remove());
    // The worker would look at the queue again only after ten minutes of real time.
    h = await startHarness({ webhooks: { extraCaPem: certs.caPem, pollMs: 600_000 } });
    const receiver = await startHttpsReceiver(certs, (n) => ({ status: n === 0 ? 500 : 200 }));
    cleanups.push(() => receiver.close());
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors webhooks');
    const { printerId } = await connectorWithPrinter(h, token, 'CLOCK-1', {
      connector: 'Clock hub',
      printer: 'Clock printer',
    });
    const endpoint = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
      name: 'clock receiver',
      url: receiver.url,
    });
    expect(endpoint.status).toBe(201);
    const jobId = await createJob(h, printerId, { name: 'retry.pdf' });
    await finishJob(h, token, jobId, 'completed', 1);
    await receiver.waitFor(1);
    await h.emulator.app.emulator.webhooks.drain();
    await advance(h.baseUrl, 3600);
    await receiver.waitFor(2);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
  });
});
