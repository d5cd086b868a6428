/**
 * Webhooks of local copy jobs: a device records a copy job over /TPFM/ (CreateLocalJob, then
 * UpdateLocalJob to its final state, or one CreateLocalJob with a final Status); the emulator
 * delivers one printjob event of type local_copy to a real HTTPS receiver (private CA trusted
 * by configuration) with the fields the device reported and the spec's required-when fields
 * (connector, printer, user), data protection applied. A Pending job publishes nothing, and
 * neither does a refused update of a final job or a resent CreateLocalJob.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TpfmClient } from '../../src/client/tpfm-client.js';
import type { EmulatorContext } from '../../src/emulator/context.js';
import { silentLogger } from '../../src/log/logger.js';
import {
  answer,
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
  type TestCertificates,
} from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { call, passwordToken } from './emulator-harness.js';
import {
  ALICE_CARD,
  DEMO,
  DEVICE_PASSWORD,
  startTpfmHarness,
  type TpfmHarness,
} from './emulator-tpfm-harness.js';

const haveOpenssl = peersAvailable('openssl');
/** A version 7 UUID (the event ids are time-ordered). */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.runIf(haveOpenssl)('webhooks of local copy jobs', () => {
  let h: TpfmHarness;
  let ctx: EmulatorContext;
  let certs: TestCertificates;
  let receiver: HttpsReceiver;
  let client: TpfmClient;
  let token: string;

  beforeAll(async () => {
    certs = await makeTestCertificates();
    h = await startTpfmHarness({ webhooks: { extraCaPem: certs.caPem, timeoutMs: 1500, pollMs: 50 } });
    ctx = h.emulator.app.emulator;
    receiver = await startHttpsReceiver(certs, answer(204));
    client = new TpfmClient({
      baseUrl: h.baseUrl,
      password: DEVICE_PASSWORD,
      userAgent: 'webhook local jobs test',
      logger: silentLogger(),
    });
    token = await passwordToken(h.baseUrl, 'webhooks');
    const res = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
      name: 'Copies',
      url: receiver.url,
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  });
  afterAll(async () => {
    await client?.close();
    await receiver?.close();
    await h?.close();
    await certs?.remove();
  });

  const alice = () => ctx.store.users.findByEmail(DEMO.user.email)!;

  it('delivers a copy job updated to Succeeded once, with every field the device reported', async () => {
    const createdAt = h.clock.now();
    const jobId = await client.createLocalJob(ALICE_CARD, {
      Printer: DEMO.printer.name,
      Type: 'Copy',
      Color: 1,
      Copies: 2,
      Duplex: 1,
      Filename: 'contract.pdf',
      PaperId: 9,
      TotalPrintedPages: 4,
    });
    await ctx.webhooks.drain();
    expect(receiver.requests).toHaveLength(0);

    h.clock.advance(90_000);
    await client.updateLocalJob(ALICE_CARD, {
      JobId: jobId,
      Status: 'Succeeded',
      TotalPrintedPages: 6,
      TotalPrintedSheets: 4,
    });
    await receiver.waitFor(1);
    await ctx.webhooks.drain();
    const got = receiver.requests[0]!;
    expect([got.method, got.headers['content-type'], got.headers['user-agent']]).toEqual([
      'POST',
      'application/json; charset=utf-8',
      'PrintRelay-Webhooks/2.0',
    ]);
    const body = JSON.parse(got.body);
    expect(body.event_id).toMatch(UUID_V7);
    expect(body).toEqual({
      created: new Date(createdAt + 90_000).toISOString(),
      event_id: body.event_id,
      topic: 'printjob_succeeded',
      content: {
        printjob: {
          printjob_id: jobId,
          created: new Date(createdAt).toISOString(),
          status: 'succeeded',
          type: 'local_copy',
          color: true,
          connector_id: h.connectorId,
          connector_name: 'TPFM test connector',
          copies: 2,
          duplex: true,
          filename: 'contract.pdf',
          paper: 'A4',
          printer_id: h.demoPrinterId,
          printer_name: DEMO.printer.name,
          total_printed_pages: 6,
          total_printed_sheets: 4,
          user_email: DEMO.user.email,
          user_id: alice().id,
          user_name: 'Alice Example',
        },
      },
    });

    // A final job takes no update (code 13) and publishes nothing more.
    await expect(client.updateLocalJob(ALICE_CARD, { JobId: jobId, Status: 'Failed' })).rejects.toThrow(/13/);
    await ctx.webhooks.drain();
    expect(receiver.requests).toHaveLength(1);
  });

  it('delivers a one-request Failed copy job with the required fields only, data protection applied, and not again when resent', async () => {
    const settings = await call(
      h.baseUrl,
      'PATCH',
      '/webhooks/settings',
      token,
      {
        file_name_obfuscated: true,
        user_email_disabled: true,
        user_name_disabled: true,
      },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(settings.status).toBe(200);
    const before = receiver.requests.length;
    const params = {
      Printer: DEMO.printer.name,
      Type: 'Copy' as const,
      Status: 'Failed' as const,
      Filename: 'salaries.xlsx',
    };
    const jobId = await client.createLocalJob(ALICE_CARD, params, 'copy-key-1');
    expect(await client.createLocalJob(ALICE_CARD, params, 'copy-key-1')).toBe(jobId);
    await receiver.waitFor(before + 1);
    await ctx.webhooks.drain();
    expect(receiver.requests).toHaveLength(before + 1);
    const body = JSON.parse(receiver.requests[before]!.body);
    const digits = body.content.printjob.filename;
    expect(digits).toMatch(/^[0-9]{10}$/);
    expect(body).toEqual({
      created: new Date(h.clock.now()).toISOString(),
      event_id: body.event_id,
      topic: 'printjob_failed',
      content: {
        printjob: {
          printjob_id: jobId,
          created: new Date(h.clock.now()).toISOString(),
          status: 'failed',
          type: 'local_copy',
          connector_id: h.connectorId,
          connector_name: 'TPFM test connector',
          filename: digits,
          printer_id: h.demoPrinterId,
          printer_name: DEMO.printer.name,
          user_id: alice().id,
        },
      },
    });
  });
});
