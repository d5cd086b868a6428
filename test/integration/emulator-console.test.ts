/**
 * The console in headless Chromium: the page shows the printer and connector, a job appears
 * and its row turns `completed` live when the connector reports it printed (no reload), a
 * fault rule and a clock advance made from the page's forms show up, the document downloads.
 * The data routes refuse ordinary users and never carry a secret; an admin's snapshot holds their
 * organization's rows only, and jobs of a user that is gone are left out.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { makeTestCertificates, startHttpsReceiver } from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { call, DEMO, type Harness, passwordToken, startHarness } from './emulator-harness.js';
import { connectorWithPrinter, createJob, finishJob } from './emulator-job-driver.js';
import { pdfFileRecord } from '../support/pdf-file-record.js';

const REMOTE = { 'x-forwarded-for': '203.0.113.9' };

describe('the console data routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('answers the local developer and admins, refuses ordinary users, and holds no secret', async () => {
    const alice = await passwordToken(h.baseUrl, 'printing account', DEMO.user);
    const admin = await passwordToken(h.baseUrl, 'printing account');
    for (const path of ['/_emulator/state', '/_emulator/events', '/_emulator/jobs/x/document']) {
      expect((await call(h.baseUrl, 'GET', path, alice, undefined, REMOTE)).status).toBe(403);
    }
    const all = await call(h.baseUrl, 'GET', '/_emulator/state', undefined);
    expect(all.body.organizations.map((o: { name: string }) => o.name)).toContain(DEMO.otherOrganization);
    const mine = await call(h.baseUrl, 'GET', '/_emulator/state', admin, undefined, REMOTE);
    expect(mine.body.organizations.map((o: { name: string }) => o.name)).toEqual([DEMO.organization]);
    const signedIn = mine.body.sign_ins.map((s: { user: string }) => s.user);
    expect(signedIn).toContain(DEMO.user.email);
    expect(signedIn).not.toContain(DEMO.otherAdmin.email);
    const text = JSON.stringify(all.body);
    for (const secret of [DEMO.client.secret, DEMO.admin.password, DEMO.user.password, admin, alice])
      expect(text).not.toContain(secret);
  });
});

describe("the console's lists", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  /** Stores a job of `userId` (the demo organization's) on `printerId`, as Print would. */
  const jobOf = async (userId: string, printerId: string, name: string) => {
    const content = Buffer.from(`document ${name}`);
    const path = join(h.dataDir, name);
    await writeFile(path, content);
    const ctx = h.emulator.app.emulator;
    return ctx.jobs.create({
      organizationId: ctx.store.users.findById(userId)!.organizationId,
      userId,
      printerId,
      file: pdfFileRecord(path, content, name),
      ticket: { copies: 1 },
      deleteAfterPrint: false,
    }).jobId;
  };

  it("hold one organization's rows for its admin and every one's for the developer", async () => {
    const admin = await passwordToken(h.baseUrl, 'printing printing.connectors account');
    const other = await passwordToken(h.baseUrl, 'printing printing.connectors', DEMO.otherAdmin);
    const mine = await connectorWithPrinter(h, admin, 'LISTS-1', {
      connector: 'Mine hub',
      printer: 'Mine printer',
    });
    await connectorWithPrinter(h, other, 'LISTS-2', { connector: 'Their hub', printer: 'Their printer' });
    await createJob(h, mine.printerId, { name: 'mine.pdf' });
    const names = (rows: { name: string }[]) => rows.map((r) => r.name);
    const all = (await call(h.baseUrl, 'GET', '/_emulator/state', undefined)).body;
    const own = (await call(h.baseUrl, 'GET', '/_emulator/state', admin, undefined, REMOTE)).body;
    expect(names(all.printers)).toEqual(expect.arrayContaining(['Mine printer', 'Their printer']));
    expect(names(all.connectors)).toEqual(expect.arrayContaining(['Mine hub', 'Their hub']));
    expect(names(own.printers)).toContain('Mine printer');
    expect(names(own.printers)).not.toContain('Their printer');
    expect(names(own.connectors)).toContain('Mine hub');
    expect(names(own.connectors)).not.toContain('Their hub');
    expect(own.jobs.map((j: { document: string }) => j.document)).toEqual(['mine.pdf']);
    const organizationsOf = (rows: { organization: string }[]) => [
      ...new Set(rows.map((r) => r.organization)),
    ];
    expect(organizationsOf(own.oauth_clients)).toEqual([DEMO.organization]);
    expect(organizationsOf(all.oauth_clients)).toEqual(
      expect.arrayContaining([DEMO.organization, DEMO.partner.organization]),
    );
  });

  it('leave out the jobs of a user that is gone and still show the 50 newest of the others', async () => {
    const admin = await passwordToken(h.baseUrl, 'printing printing.connectors account');
    const { printerId } = await connectorWithPrinter(h, admin, 'LISTS-3', { printer: 'Busy printer' });
    const ctx = h.emulator.app.emulator;
    const adminId = ctx.store.users.findByEmail(DEMO.admin.email)!.id;
    const aliceId = ctx.store.users.findByEmail(DEMO.user.email)!.id;
    for (let i = 0; i < 50; i++) await jobOf(adminId, printerId, `admin-${i}.pdf`);
    for (let i = 0; i < 3; i++) await jobOf(aliceId, printerId, `alice-${i}.pdf`);
    const usersOf = async () =>
      (await call(h.baseUrl, 'GET', '/_emulator/state', undefined)).body.jobs.map(
        (j: { user: string }) => j.user,
      );
    const before = await usersOf();
    expect(before.slice(0, 3)).toEqual([DEMO.user.email, DEMO.user.email, DEMO.user.email]);
    expect(before).toHaveLength(50);
    expect((await call(h.baseUrl, 'DELETE', `/v1/users/${aliceId}`, admin)).status).toBe(204);
    expect(ctx.store.users.findById(aliceId)).toBeUndefined();
    const after = await usersOf();
    expect(after).toHaveLength(50);
    expect(new Set(after)).toEqual(new Set([DEMO.admin.email]));
  });
});

describe.runIf(peersAvailable('chromium'))('the console in a browser', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows a job turn completed live, and takes fault rules and clock moves from its forms', async () => {
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
    const { printerId, connectorId } = await connectorWithPrinter(h, token, 'CONSOLE-1', {
      connector: 'Console hub',
      printer: 'Console printer',
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${h.baseUrl}/_emulator/`);
    await page
      .locator(`#printers tr[data-id="${printerId}"] td[data-field="name"]`, { hasText: 'Console printer' })
      .waitFor();
    await page.locator(`#connectors tr[data-id="${connectorId}"]`, { hasText: 'Console hub' }).waitFor();

    const jobId = await createJob(h, printerId, { name: 'live.pdf' });
    const state = page.locator(`#jobs tr[data-id="${jobId}"] td[data-field="state"]`);
    await state.filter({ hasText: 'pending' }).waitFor();
    await finishJob(h, token, jobId, 'completed', 2);
    await state.filter({ hasText: 'completed' }).waitFor();
    await page.locator(`#jobs tr[data-id="${jobId}"] td[data-field="pages"]`, { hasText: '2/2' }).waitFor();

    await page.fill('#fault', '{"operation": "GetPrinter", "respond": {"status": 503}, "times": 2}');
    await page.click('#fault-form button[type=submit]');
    await page.locator('#faults td[data-field="id"]', { hasText: 'f1' }).waitFor();
    expect((await call(h.baseUrl, 'GET', '/_emulator/faults', undefined)).body[0].remaining).toBe(2);
    await page.click('#faults tr >> text=remove');
    await page.locator('#faults .empty').waitFor();

    await page.fill('#advance', '7200');
    await page.click('#clock-form button[type=submit]');
    await page.locator('#clock', { hasText: '(+7200 s)' }).waitFor();
    expect((await call(h.baseUrl, 'GET', '/_emulator/clock', undefined)).body.offset_s).toBe(7200);
    expect(errors).toEqual([]);
    await page.close();

    const document = await request(`${h.baseUrl}/_emulator/jobs/${jobId}/document`);
    expect(document.headers['content-disposition']).toBe('attachment; filename="live.pdf"');
    expect(await document.body.text()).toMatch(/^document \d+$/);
  }, 60_000);
});

describe.runIf(peersAvailable('openssl'))('the console and webhooks', () => {
  it('lists a failed delivery and retries it on request', async () => {
    const certs = await makeTestCertificates();
    const h = await startHarness({ webhooks: { extraCaPem: certs.caPem, pollMs: 600_000 } });
    const receiver = await startHttpsReceiver(certs, (n) => ({ status: n === 0 ? 500 : 204 }));
    try {
      const token = await passwordToken(h.baseUrl, 'printing printing.connectors webhooks');
      const { printerId } = await connectorWithPrinter(h, token, 'CONSOLE-2', { printer: 'Hook printer' });
      const created = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
        name: 'hook',
        url: receiver.url,
      });
      const endpointId = created.body.endpoint_id as string;
      await finishJob(h, token, await createJob(h, printerId), 'completed', 1);
      await receiver.waitFor(1);
      await h.emulator.app.emulator.webhooks.drain();
      const listed = (await call(h.baseUrl, 'GET', '/_emulator/state', undefined)).body.webhooks;
      expect(listed).toHaveLength(1);
      const delivery = listed[0].deliveries[0];
      expect([delivery.attempts, delivery.response_status_code]).toEqual([1, 500]);
      const retry = await call(
        h.baseUrl,
        'POST',
        `/_emulator/webhooks/${endpointId}/events/${delivery.event_id}/retry`,
        undefined,
      );
      expect(retry.body).toEqual({ status: 'succeeded' });
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await receiver.close();
      await h.close();
      await certs.remove();
    }
  }, 60_000);

  it("records a receiver's answer as the failing status of a webhook_status rule, then retries on schedule", async () => {
    const certs = await makeTestCertificates();
    const h = await startHarness({ webhooks: { extraCaPem: certs.caPem, pollMs: 600_000 } });
    const receiver = await startHttpsReceiver(certs, () => ({ status: 204 }));
    try {
      const token = await passwordToken(h.baseUrl, 'printing printing.connectors webhooks');
      const { printerId } = await connectorWithPrinter(h, token, 'CONSOLE-3', {
        printer: 'Fault hook printer',
      });
      const created = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
        name: 'hook',
        url: receiver.url,
      });
      const endpointId = created.body.endpoint_id as string;
      const rule = { endpoint: endpointId, webhook_status: 503, times: 1 };
      expect((await call(h.baseUrl, 'POST', '/_emulator/faults', undefined, rule)).status).toBe(201);
      await finishJob(h, token, await createJob(h, printerId), 'completed', 1);
      await receiver.waitFor(1);
      await h.emulator.app.emulator.webhooks.drain();
      const failed = (await call(h.baseUrl, 'GET', `/webhooks/endpoints/${endpointId}/events`, token)).body;
      expect(failed.results[0].endpoint).toMatchObject({ status: 'pending', response_status_code: 503 });
      await call(h.baseUrl, 'POST', '/_emulator/clock', undefined, { advance_s: 3600 });
      await receiver.waitFor(2);
      await h.emulator.app.emulator.webhooks.drain();
      // The hour that passed ended the token too.
      const fresh = await passwordToken(h.baseUrl, 'webhooks');
      const after = await call(h.baseUrl, 'GET', `/webhooks/endpoints/${endpointId}/events`, fresh);
      expect(after.body.count).toBe(0);
    } finally {
      await receiver.close();
      await h.close();
      await certs.remove();
    }
  }, 60_000);
});
