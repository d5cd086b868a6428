/**
 * Regression tests of issue 22 item 5's other suspects (real paths, passing before the fix):
 * a registration sheet issued, the emulator restarted on the same database and data directory,
 * then downloaded; and twenty unknown cards asked at once at one device, every sheet its own file and job,
 * all downloadable by the printer's connector.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { defaultUnknownNameLimits } from '../../src/emulator/store/credential-guard.js';
import { REGISTRATION_JOB_USER } from '../../src/emulator/pull/cards/registration-codes.js';
import {
  call,
  createPrinter,
  DEMO,
  type Harness,
  passwordToken,
  registration,
  startHarness,
} from './emulator-harness.js';
import { tpfm } from './emulator-tpfm-harness.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sheet-restart-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function download(h: Harness, token: string, connectorId: string, jobId: string) {
  const url = new URL(`/connector/v1/jobs/${jobId}/document?claim=1`, h.baseUrl);
  const res = await request(url, { headers: { authorization: `Bearer ${token}`, 'x-host-id': connectorId } });
  return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
}

const sheetJobs = (h: Harness) =>
  h.emulator.app.emulator.store.db
    .prepare('SELECT id FROM jobs WHERE user_id = ? ORDER BY created_at, rowid')
    .all(REGISTRATION_JOB_USER) as { id: string }[];

describe('registration sheets across a restart and in bulk (regression, issue 22 item 5)', () => {
  it('a sheet issued before an emulator restart downloads after it', async () => {
    const options = {
      db: join(dir, 'emulator.db'),
      dataDir: join(dir, 'data'),
      clock: new ManualClock(Date.now()),
    };
    const first = await startHarness(options);
    let jobId: string;
    let connectorId: string;
    try {
      const token = await passwordToken(first.baseUrl, 'printing printing.connectors');
      connectorId = (await call(first.baseUrl, 'POST', '/connector/v1/register', token, registration('R-1')))
        .body.id;
      await createPrinter(first.baseUrl, token, connectorId, DEMO.printer.name);
      const asked = await tpfm(
        first,
        'GetCapabilities',
        { Printer: DEMO.printer.name },
        { user: 'AB5E0001' },
      );
      expect(asked.code).toBe(0);
      jobId = sheetJobs(first)[0]!.id;
    } finally {
      await first.close();
    }
    const second = await startHarness(options);
    try {
      const token = await passwordToken(second.baseUrl, 'printing printing.connectors');
      const res = await download(second, token, connectorId, jobId);
      expect(res.status).toBe(200);
      expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await second.close();
    }
  });

  it('twenty unknown cards asked at once at one device: twenty sheet files and jobs, each downloadable', async () => {
    // The throttles of device look-ups (unknown cards count against the device) are raised for the twenty.
    const roomy = { ...defaultUnknownNameLimits, maxFailures: 100 };
    const h = await startHarness({
      credentialLimits: {
        perSubject: roomy,
        perSource: roomy,
        unknownNamesPerDevice: roomy,
        failureDelayMs: 0,
      },
    });
    try {
      const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
      const connectorId = (
        await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('R-2'))
      ).body.id;
      await createPrinter(h.baseUrl, token, connectorId, DEMO.printer.name);
      const cards = Array.from({ length: 20 }, (_, i) => `AB5E1${String(i).padStart(3, '0')}`);
      const answers = await Promise.all(
        cards.map((card) => tpfm(h, 'GetCapabilities', { Printer: DEMO.printer.name }, { user: card })),
      );
      expect(answers.map((a) => a.code)).toEqual(cards.map(() => 0));
      const jobs = sheetJobs(h);
      expect(jobs).toHaveLength(20);
      expect(await readdir(join(h.dataDir, 'registration-sheets'))).toHaveLength(20);
      const results = await Promise.all(jobs.map((j) => download(h, token, connectorId, j.id)));
      expect(results.map((r) => r.status)).toEqual(jobs.map(() => 200));
    } finally {
      await h.close();
    }
  });
});
