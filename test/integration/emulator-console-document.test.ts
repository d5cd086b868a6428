/**
 * The console's document download (GET /_emulator/jobs/<id>/document) goes through the
 * connector download's sender (src/emulator/http/file-sender.ts): the whole document with its
 * file name, ETag and Accept-Ranges, a range, a stale If-Range, HEAD without a body, 416 past the
 * end, from the shared buffers; and it takes one of its organization's download slots (503 with
 * Retry-After while they are all held).
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, type Harness, passwordToken, startHarness } from './emulator-harness.js';
import { connectorWithPrinter } from './emulator-job-driver.js';
import { pdfFileRecord } from '../support/pdf-file-record.js';

const MiB = 1024 * 1024;
const content = Buffer.from(Array.from({ length: 3 * MiB + 777 }, (_, i) => (i * 13) % 251));

describe("the console's document download", () => {
  let h: Harness;
  let url: string;
  let orgId: string;

  beforeAll(async () => {
    h = await startHarness({ downloads: { maxActivePerTenant: 1, maxWaitMs: 0, retryAfterS: 3 } });
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
    const { printerId } = await connectorWithPrinter(h, token, 'CONSOLE-DOC', { printer: 'Doc printer' });
    const ctx = h.emulator.app.emulator;
    const admin = ctx.store.users.findByEmail(DEMO.admin.email);
    if (!admin) throw new Error('the seed has no admin');
    orgId = admin.organizationId;
    const path = join(h.dataDir, 'console-doc.pdf');
    await writeFile(path, content, { mode: 0o600 });
    const { jobId } = ctx.jobs.create({
      organizationId: orgId,
      userId: admin.id,
      printerId,
      file: pdfFileRecord(path, content, 'quarterly report.pdf'),
      ticket: { copies: 1 },
      deleteAfterPrint: false,
    });
    url = `${h.baseUrl}/_emulator/jobs/${jobId}/document`;
  });
  afterAll(async () => h?.close());

  const get = async (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => {
    const res = await request(url, { method, headers });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  };

  it('serves the whole document, a range, a stale If-Range whole, HEAD and 416 as the connector download does', async () => {
    const whole = await get();
    expect(whole.status).toBe(200);
    expect(whole.body.equals(content)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-disposition': 'attachment; filename="quarterly report.pdf"',
      'content-type': 'application/pdf',
      'content-length': String(content.length),
      'accept-ranges': 'bytes',
    });
    const etag = String(whole.headers['etag']);
    expect(etag).toBe(`"${createHash('sha256').update(content).digest('hex')}"`);

    const part = await get({ range: `bytes=${MiB - 3}-${2 * MiB + 4}`, 'if-range': etag });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes ${MiB - 3}-${2 * MiB + 4}/${content.length}`);
    expect(part.body.equals(content.subarray(MiB - 3, 2 * MiB + 5))).toBe(true);

    const stale = await get({ range: 'bytes=0-9', 'if-range': '"another"' });
    expect([stale.status, stale.body.length]).toEqual([200, content.length]);

    const head = await get({ range: 'bytes=-100' }, 'HEAD');
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([206, '100', 0]);

    const beyond = await get({ range: `bytes=${content.length}-` });
    expect([beyond.status, beyond.headers['content-range']]).toEqual([416, `bytes */${content.length}`]);

    const sender = h.emulator.app.emulator.documents;
    await sender.settled();
    expect([sender.pool.inUse, sender.gate.active()]).toEqual([0, 0]);
  });

  it("takes one of its organization's download slots", async () => {
    const gate = h.emulator.app.emulator.documents.gate;
    const release = await gate.acquire(orgId, new AbortController().signal);
    try {
      const refused = await get();
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('3');
      expect(JSON.parse(refused.body.toString())).toMatchObject({ error: 'downloads_busy' });
    } finally {
      release();
    }
    expect((await get()).body.equals(content)).toBe(true);
  });
});
