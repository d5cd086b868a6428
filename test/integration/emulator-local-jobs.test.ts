/**
 * The emulator's side of recorded copy jobs: a CreateLocalJob resent with the same
 * Idempotency-Key answers the job it already made, and an admin reads a printer's local jobs
 * (GET /printing/v1/printers/<id>/local_jobs) with the 24-hour rule applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TpfmClient } from '../../src/client/tpfm-client.js';
import { silentLogger } from '../../src/log/logger.js';
import { call, passwordToken } from './emulator-harness.js';
import {
  ALICE_CARD,
  DEMO,
  DEVICE_PASSWORD,
  startTpfmHarness,
  type TpfmHarness,
} from './emulator-tpfm-harness.js';

let h: TpfmHarness;
let client: TpfmClient;

beforeAll(async () => {
  h = await startTpfmHarness();
  client = new TpfmClient({
    baseUrl: h.baseUrl,
    password: DEVICE_PASSWORD,
    userAgent: 'local jobs test',
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await client.close();
  await h.close();
});

describe('local jobs at the emulator', () => {
  it('answers a resend with the same Idempotency-Key with the first job (its parameters applied), and lists jobs for admins only', async () => {
    const params = { Printer: DEMO.printer.name, Type: 'Copy' as const, TotalPrintedPages: 3 };
    const first = await client.createLocalJob(ALICE_CARD, params, 'key-1');
    expect(await client.createLocalJob(ALICE_CARD, { ...params, TotalPrintedPages: 9 }, 'key-1')).toBe(first);
    const other = await client.createLocalJob(ALICE_CARD, { ...params, Status: 'Succeeded' }, 'key-2');
    const plain = await client.createLocalJob(ALICE_CARD, params);
    expect(new Set([first, other, plain]).size).toBe(3);
    h.clock.advance(24 * 3600_000);

    const path = `/printing/v1/printers/${h.demoPrinterId}/local_jobs`;
    // Tokens of the harness expired with the day that passed.
    const admin = await passwordToken(h.baseUrl, 'printing');
    const alice = await passwordToken(h.baseUrl, 'printing', DEMO.user);
    const read = await call(h.baseUrl, 'GET', path, admin);
    expect(read.status).toBe(200);
    const jobs = (read.body as { local_jobs: { id: string; state: string; type: string; fields: unknown }[] })
      .local_jobs;
    expect(jobs.map((j) => [j.id, j.type, j.state, j.fields])).toEqual([
      [plain, 'Copy', 'closed', { TotalPrintedPages: 3 }],
      [other, 'Copy', 'Succeeded', { TotalPrintedPages: 3 }],
      [first, 'Copy', 'closed', { TotalPrintedPages: 9 }],
    ]);
    expect((await call(h.baseUrl, 'GET', path, alice)).status).toBe(403);
    expect((await call(h.baseUrl, 'GET', '/printing/v1/printers/nope/local_jobs', admin)).status).toBe(404);
  });
});
