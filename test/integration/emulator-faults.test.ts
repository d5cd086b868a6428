/**
 * The fault switchboard's HTTP rules against a real emulator: `respond` answers an operation
 * (by its OpenAPI operationId) with the chosen status, headers and body, `times` limits it,
 * `latency_ms` and `cut` touch the answer, scopes pick the requests, every touched response
 * names the rule in `x-printrelay-fault`, and bad rules get 400 naming each field. Only the
 * local developer and organization admins reach it; an admin's rules touch their organization only.
 */
import { request } from 'undici';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { call, DEMO, type Harness, passwordToken, startHarness } from './emulator-harness.js';
import { connectorWithPrinter, createJob, finishJob } from './emulator-job-driver.js';

const REMOTE = { 'x-forwarded-for': '203.0.113.9' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const addFault = (base: string, rule: unknown, token?: string, headers: Record<string, string> = {}) =>
  call(base, 'POST', '/_emulator/faults', token, rule, headers);

/** GET /sfapi/GetPrinter as the token's user, raw (a faulted answer is outside the contract). */
async function getPrinter(base: string, token: string) {
  const res = await request(`${base}/sfapi/GetPrinter`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

describe('HTTP fault rules', () => {
  it('answers an operation with the chosen status, headers and body, as often as asked', async () => {
    h = await startHarness();
    const alice = await passwordToken(h.baseUrl, 'printing', DEMO.user);
    const added = await addFault(h.baseUrl, {
      operation: 'GetPrinter',
      respond: { status: 429, headers: { 'Retry-After': 7 }, body: { error: 'slow_down' } },
      times: 2,
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual([
      {
        id: 'f1',
        operation: 'GetPrinter',
        respond: { status: 429, headers: { 'retry-after': '7' }, body: { error: 'slow_down' } },
        remaining: 2,
        hits: 0,
        created: new Date(h.clock.now()).toISOString(),
      },
    ]);
    for (let i = 0; i < 2; i++) {
      const faulted = await getPrinter(h.baseUrl, alice);
      expect([faulted.status, faulted.headers['retry-after'], faulted.headers['x-printrelay-fault']]).toEqual(
        [429, '7', 'f1'],
      );
      expect(JSON.parse(faulted.text)).toEqual({ error: 'slow_down' });
    }
    const normal = await getPrinter(h.baseUrl, alice);
    expect(normal.status).toBe(200);
    expect(normal.headers['x-printrelay-fault']).toBeUndefined();
    expect((await call(h.baseUrl, 'GET', '/_emulator/faults', undefined)).body).toEqual([]);
  });

  it('adds latency for one user only and cuts an answer mid-body', async () => {
    h = await startHarness();
    const alice = await passwordToken(h.baseUrl, 'printing', DEMO.user);
    const admin = await passwordToken(h.baseUrl, 'printing');
    await addFault(h.baseUrl, [
      { user: DEMO.user.email, latency_ms: 20 },
      { operation: 'GetPrinter', user: DEMO.admin.email, cut: true, times: 1 },
    ]);
    const slow = await getPrinter(h.baseUrl, alice);
    expect([slow.status, slow.headers['x-printrelay-fault']]).toEqual([200, 'f1']);

    const cut = await request(`${h.baseUrl}/sfapi/GetPrinter`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect([cut.statusCode, cut.headers['x-printrelay-fault']]).toEqual([200, 'f2']);
    await expect(cut.body.text()).rejects.toThrow();
    const whole = await getPrinter(h.baseUrl, admin);
    expect(whole.headers['x-printrelay-fault']).toBeUndefined();
    expect(Array.isArray(JSON.parse(whole.text))).toBe(true);
    const listed = (await call(h.baseUrl, 'GET', '/_emulator/faults', undefined)).body;
    expect(listed.map((r: { id: string; hits: number }) => [r.id, r.hits])).toEqual([['f1', 1]]);

    await addFault(h.baseUrl, {
      operation: 'GetPrinter',
      user: DEMO.admin.email,
      slow_chunks_ms: 5,
      times: 1,
    });
    const slowly = await getPrinter(h.baseUrl, admin);
    expect([slowly.status, slowly.headers['x-printrelay-fault']]).toEqual([200, 'f3']);
    expect(JSON.parse(slowly.text)).toEqual(JSON.parse(whole.text));
  });

  it('refuses a bad rule naming every field, adds nothing of a refused batch, and removes rules', async () => {
    h = await startHarness();
    const bad = await addFault(h.baseUrl, [
      { operation: 'GetPrinter', latency_ms: 10 },
      { operation: 'GetPrinter', respond: { status: 700 }, times: 0 },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      '[1].times: must be a whole number from 1 to 1000000; [1].respond.status: must be an HTTP status from 200 to 599',
    );
    expect((await call(h.baseUrl, 'GET', '/_emulator/faults', undefined)).body).toEqual([]);
    await addFault(h.baseUrl, [
      { operation: 'GetPrinter', latency_ms: 10 },
      { operation: 'Print', latency_ms: 10 },
    ]);
    expect((await call(h.baseUrl, 'DELETE', '/_emulator/faults/F1', undefined)).status).toBe(204);
    expect((await call(h.baseUrl, 'DELETE', '/_emulator/faults/f1', undefined)).status).toBe(404);
    expect((await call(h.baseUrl, 'DELETE', '/_emulator/faults', undefined)).body).toEqual({ removed: 1 });
  });

  it("never touches the sandbox's own routes", async () => {
    h = await startHarness();
    await addFault(h.baseUrl, { respond: { status: 503 }, operation: 'ListEmulatorFaults' });
    await addFault(h.baseUrl, { latency_ms: 10 });
    const list = await call(h.baseUrl, 'GET', '/_emulator/faults', undefined);
    expect(list.status).toBe(200);
    expect(list.headers['x-printrelay-fault']).toBeUndefined();
  });

  it("is not for ordinary users; an admin's rules touch their organization only", async () => {
    h = await startHarness();
    const alice = await passwordToken(h.baseUrl, 'printing account', DEMO.user);
    const admin = await passwordToken(h.baseUrl, 'printing account');
    const other = await passwordToken(h.baseUrl, 'printing account', DEMO.otherAdmin);
    const rule = { operation: 'GetPrinter', respond: { status: 503 } };
    expect((await addFault(h.baseUrl, rule, undefined, REMOTE)).status).toBe(401);
    expect((await addFault(h.baseUrl, rule, alice, REMOTE)).status).toBe(403);
    expect((await call(h.baseUrl, 'GET', '/_emulator/faults', alice, undefined, REMOTE)).status).toBe(403);
    const added = await addFault(h.baseUrl, rule, admin, REMOTE);
    expect(added.status).toBe(201);
    expect((await getPrinter(h.baseUrl, other)).status).toBe(200);
    expect((await getPrinter(h.baseUrl, alice)).status).toBe(503);
    expect((await call(h.baseUrl, 'GET', '/_emulator/faults', other, undefined, REMOTE)).body).toEqual([]);
    expect((await call(h.baseUrl, 'DELETE', '/_emulator/faults/f1', other, undefined, REMOTE)).status).toBe(
      404,
    );
  });

  it('records a printed job with fewer pages for the printer of an end_job rule', async () => {
    h = await startHarness();
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
    const { printerId } = await connectorWithPrinter(h, token, 'FAULT-1', { printer: 'Fault printer' });
    const refused = await addFault(h.baseUrl, { operation: 'Print', end_job: { pages_printed: 1 } });
    expect(refused.body.message).toBe(
      'operation: does not apply to end_job (jobs are matched by printer and user)',
    );
    await addFault(h.baseUrl, { printer: printerId, end_job: { pages_printed: 1 }, times: 1 });
    const short = await createJob(h, printerId);
    await finishJob(h, token, short, 'completed', 3);
    const whole = await createJob(h, printerId);
    await finishJob(h, token, whole, 'completed', 3);
    const jobs = h.emulator.app.emulator.store.jobs;
    expect([short, whole].map((id) => [jobs.findById(id)?.state, jobs.findById(id)?.pagesPrinted])).toEqual([
      ['completed', 1],
      ['completed', 3],
    ]);
  });

  it('drops a connector: its channel closes, its reconnects get 503 while the rule lasts, then go through', async () => {
    h = await startHarness();
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
    const { connectorId } = await connectorWithPrinter(h, token, 'DROP-1', { printer: 'Drop printer' });
    const open = () =>
      new WebSocket(`${h!.baseUrl.replace('http', 'ws')}/connector/v1/channel`, {
        headers: { authorization: `Bearer ${token}`, 'x-host-id': connectorId },
      });
    const first = open();
    // The emulator's hello: the channel is attached once it comes.
    await new Promise((resolve, reject) => first.once('message', resolve).once('error', reject));
    const closed = new Promise<[number, string]>((resolve) =>
      first.once('close', (code, reason) => resolve([code, reason.toString()])),
    );
    expect(
      (await addFault(h.baseUrl, { connector: connectorId, drop_connector: true, times: 1 })).status,
    ).toBe(201);
    expect(await closed).toEqual([1012, 'fault rule f1']);

    const refused = open();
    const answer = await new Promise<{ statusCode?: number; headers: Record<string, unknown> }>((resolve) =>
      refused.once('unexpected-response', (_req, res) => {
        resolve(res);
        res.resume();
      }),
    );
    expect([answer.statusCode, answer.headers['x-printrelay-fault']]).toEqual([503, 'f1']);
    // The refused upgrade leaves a socket that never opened; ending it reports that as an error.
    refused.on('error', () => {});
    refused.terminate();
    const again = open();
    await new Promise((resolve, reject) => again.once('open', resolve).once('error', reject));
    const done = new Promise((resolve) => again.once('close', resolve));
    again.close();
    await done;
  });

  it('is absent when the sandbox is off', async () => {
    h = await startHarness({ sandbox: { enabled: false } });
    expect((await addFault(h.baseUrl, { operation: 'GetPrinter', respond: { status: 503 } })).status).toBe(
      404,
    );
  });
});
