/**
 * The webhook queue across an emulator restart (database file and data directory kept): a
 * pending retry and its endpoint's sealed Basic password survive, and the next emulator
 * delivers when the retry is due; a delivered event is not sent again by the next emulator.
 * And the per-endpoint limit: a receiver that never answers holds up only its own deliveries.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { answer, type Behaviour } from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { connectorWithPrinter, createJob, finishJob } from './emulator-job-driver.js';
import { call, type Harness, passwordToken } from './emulator-harness.js';
import { webhookTestBed } from './webhook-test-bed.js';

const haveOpenssl = peersAvailable('openssl');

describe.runIf(haveOpenssl)('webhook queue', () => {
  const bed = webhookTestBed('webhook-restart-');
  const receiver = (behaviour: Behaviour) => bed.receiver(behaviour);
  /** An emulator on `db` (default: emulator.db) whose data directory is the bed's folder. */
  const start = (clock: ManualClock, extra: { perEndpoint?: number; db?: string; pollMs?: number } = {}) =>
    bed.start({
      clock,
      dataDir: bed.dir,
      db: extra.db ?? join(bed.dir, 'emulator.db'),
      perEndpoint: extra.perEndpoint ?? 4,
      ...(extra.pollMs ? { pollMs: extra.pollMs } : {}),
    });

  /** A connector with a printer, and a function that runs one job of it to completion over HTTP. */
  async function printing(h: Harness, serial: string) {
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors webhooks');
    const { printerId } = await connectorWithPrinter(h, token, serial, { printer: `Printer ${serial}` });
    const printOne = async () => finishJob(h, token, await createJob(h, printerId), 'completed');
    return { token, printOne };
  }

  it('keeps a pending retry and the sealed password across a restart, and delivers when due', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    let behaviour: Behaviour = answer(500);
    const peer = await receiver((n) => behaviour(n));
    const first = await start(clock);
    const { token, printOne } = await printing(first, 'RESTART-1');
    const created = await call(first.baseUrl, 'POST', '/webhooks/endpoints', token, {
      name: 'Survivor',
      url: peer.url,
      authentication_scheme: 'basic',
      basic_username: 'keeper',
      basic_password: 'kept-across-restarts',
    });
    await printOne();
    await peer.waitFor(1);
    await first.emulator.app.emulator.webhooks.drain();
    await bed.stop(first);

    expect((await stat(join(bed.dir, 'keys'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(bed.dir, 'keys', 'webhook-secrets.key'))).mode & 0o777).toBe(0o600);

    behaviour = answer(200);
    clock.advance(61_000);
    const second = await start(clock);
    await peer.waitFor(2);
    await second.emulator.app.emulator.webhooks.drain();
    expect(peer.requests[1]!.body).toBe(peer.requests[0]!.body);
    expect(peer.requests[1]!.headers['authorization']).toBe(
      `Basic ${Buffer.from('keeper:kept-across-restarts').toString('base64')}`,
    );
    const token2 = await passwordToken(second.baseUrl, 'webhooks');
    const events = await call(
      second.baseUrl,
      'GET',
      `/webhooks/endpoints/${created.body.endpoint_id}/events`,
      token2,
    );
    expect(events.body.count).toBe(0);
  });

  it('sends a delivered event once: a stop right after the receiver got it writes the outcome, and the next start sends nothing', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 10));
    const peer = await receiver(answer(204));
    const db = join(bed.dir, 'once.db');
    const first = await start(clock, { db });
    const { token, printOne } = await printing(first, 'ONCE-1');
    await call(first.baseUrl, 'POST', '/webhooks/endpoints', token, { name: 'Once', url: peer.url });
    for (let i = 0; i < 3; i += 1) await printOne();
    await peer.waitFor(3);
    await bed.stop(first);

    const second = await start(clock, { db });
    await second.emulator.app.emulator.webhooks.drain();
    const count = (table: string) =>
      second.emulator.app.emulator.store.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get();
    expect(count('webhook_deliveries')).toEqual({ n: 0 });
    expect(peer.requests).toHaveLength(3);
    expect(new Set(peer.requests.map((r) => JSON.parse(r.body).event_id)).size).toBe(3);
  });

  it('limits deliveries per endpoint, so a receiver that never answers holds up only itself', async () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 1));
    const h = await start(clock, { perEndpoint: 1, db: ':memory:' });
    const { token, printOne } = await printing(h, 'LIMIT-1');
    const stuck = await receiver(() => 'stall');
    const fast = await receiver(answer(200));
    const ids: string[] = [];
    for (const url of [stuck.url, fast.url])
      ids.push(
        (await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, { name: `limit ${url}`, url })).body
          .endpoint_id,
      );
    for (let i = 0; i < 3; i += 1) await printOne();
    await fast.waitFor(3);
    expect(stuck.requests).toHaveLength(1);
    const queued = h.emulator.app.emulator.store.db
      .prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'queued' AND endpoint_id = ?`)
      .get(ids[0]);
    expect(queued).toEqual({ n: 3 });
  });

  it('delivers events queued while every delivery slot of an endpoint is busy once a slot frees, with no poll', async () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 1));
    // The dispatcher's timer would look only after 10 minutes: only queued() and the end of a
    // delivery can start the next ones.
    const h = await start(clock, { perEndpoint: 1, db: ':memory:', pollMs: 600_000 });
    const { token, printOne } = await printing(h, 'SLOW-1');
    const slow = await receiver(() => ({ status: 200, delayMs: 300 }));
    const fast = await receiver(answer(200));
    for (const url of [slow.url, fast.url])
      await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, { name: `slot ${url}`, url });
    // The first event takes the slow endpoint's only slot for 300 ms; the next two are queued
    // while it is busy.
    for (let i = 0; i < 3; i += 1) await printOne();
    await fast.waitFor(3);
    await slow.waitFor(3);
    const order = (r: typeof slow) => r.requests.map((q) => JSON.parse(q.body).event_id as string);
    expect(order(slow)).toEqual(order(fast));
  });
});
