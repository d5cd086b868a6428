/**
 * A registration sheet (a print-and-delete job) whose PDF is gone from disk before the connector
 * downloads it: the download answers 410 naming the cause, the job fails once with that reason
 * (its Status says it failed), and the connector's later events are taken without reviving the job.
 * Before, the missing file crashed the download with a 500.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRATION_JOB_USER } from '../../src/emulator/pull/cards/registration-codes.js';
import { call } from './emulator-harness.js';
import { DEMO, startTpfmHarness, type TpfmHarness, tpfm } from './emulator-tpfm-harness.js';

let h: TpfmHarness;
beforeAll(async () => {
  h = await startTpfmHarness();
});
afterAll(async () => h?.close());

const ctx = () => h.emulator.app.emulator;
const asConnector = { 'x-host-id': '' };

async function sheetFor(card: string): Promise<string> {
  expect((await tpfm(h, 'GetCapabilities', { Printer: DEMO.printer.name }, { user: card })).code).toBe(0);
  const row = ctx()
    .store.db.prepare('SELECT id FROM jobs WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
    .get(REGISTRATION_JOB_USER) as { id: string };
  return row.id;
}

describe('a registration sheet whose file is missing on disk', () => {
  it('answers 410 at the claiming download and fails the job once with the reason', async () => {
    asConnector['x-host-id'] = h.connectorId;
    const jobId = await sheetFor('0FF1CE01');
    await rm(ctx().store.jobs.findById(jobId)!.file.path);
    const path = `/connector/v1/jobs/${jobId}/document?claim=1`;
    const first = await call(h.baseUrl, 'GET', path, h.adminToken, undefined, asConnector);
    expect(first.status).toBe(410);
    expect(first.body).toMatchObject({ message: expect.stringContaining('missing on the server') });
    const failed = ctx().store.jobs.findById(jobId)!;
    expect(failed).toMatchObject({ state: 'failed', fileDeleted: true });
    expect(failed.message).toContain('missing on the server');

    const again = await call(h.baseUrl, 'GET', path, h.adminToken, undefined, asConnector);
    expect(again.status).toBe(410);
    expect(ctx().store.jobs.findById(jobId)!.finishedAt).toBe(failed.finishedAt);

    const status = await call(h.baseUrl, 'GET', `/sfapi/Status/?id=${jobId}`, h.adminToken);
    expect(status.status).toBe(200);
    expect(String(status.body.jobstatusstring)).toMatch(/^ERROR\|/);

    const event = {
      event_id: randomUUID(),
      seq: 1,
      kind: 'failed',
      at: new Date(h.clock.now()).toISOString(),
      message: 'document download refused (410)',
    };
    const answer = await call(
      h.baseUrl,
      'POST',
      `/connector/v1/jobs/${jobId}/events`,
      h.adminToken,
      event,
      asConnector,
    );
    expect(answer.status).toBe(204);
    expect(ctx().store.jobs.findById(jobId)!.message).toBe(failed.message);
  });

  it('a sheet whose file is still there downloads whole', async () => {
    const jobId = await sheetFor('0FF1CE02');
    const url = new URL(`/connector/v1/jobs/${jobId}/document?claim=1`, h.baseUrl);
    const res = await request(url, {
      headers: { authorization: `Bearer ${h.adminToken}`, 'x-host-id': h.connectorId },
    });
    const body = Buffer.from(await res.body.arrayBuffer());
    expect(res.statusCode).toBe(200);
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(ctx().store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', fileDeleted: false });
  });
});
