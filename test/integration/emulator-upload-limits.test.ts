/**
 * The limits of PrepareUpload uploads against a running emulator: a file's uncommitted blocks
 * (count and bytes), the organization's quota of pending uploads, the PrepareUpload rate per
 * user (sfapi and /TPFM/ alike, 429 with Retry-After), and the sweep of expired uploads and
 * their blocks on the injected clock.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { UploadLimits } from '../../src/emulator/files/upload-limits.js';
import { ManualClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

const HOUR = 3600_000;
const roomy: Partial<UploadLimits> = { prepareRate: { max: 1000, windowMs: 60_000 } };
let h: SfapiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(limits: Partial<UploadLimits>, clock = new ManualClock(Date.UTC(2026, 5, 1))) {
  h = await startSfapiHarness(clock, silentLogger(), undefined, undefined, limits);
  return { h, clock };
}

async function prepare(harness: SfapiHarness) {
  const res = await request(`${harness.base}/sfapi/PrepareUpload/`, {
    headers: { authorization: `Bearer ${harness.token}` },
  });
  const text = await res.body.text();
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: JSON.parse(text) };
}

async function put(url: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const res = await request(url, { method: 'PUT', headers, body });
  return { status: res.statusCode, code: res.headers['x-ms-error-code'], text: await res.body.text() };
}

const block = (sasUri: string, id: string) =>
  `${sasUri}&comp=block&blockid=${Buffer.from(id).toString('base64')}`;
const blockList = (ids: string[]) =>
  `<?xml version="1.0" encoding="utf-8"?><BlockList>${ids
    .map((id) => `<Latest>${Buffer.from(id).toString('base64')}</Latest>`)
    .join('')}</BlockList>`;

describe('uploads through PrepareUpload URLs', () => {
  it("caps a file's uncommitted blocks by count and by bytes", async () => {
    const { h } = await start({ ...roomy, maxUncommittedBlocks: 3, maxUncommittedBytes: 1000 });
    const { sasUri } = (await prepare(h)).body;
    for (const id of ['b1', 'b2', 'b3'])
      expect((await put(block(sasUri, id), 'x'.repeat(300))).status).toBe(201);
    const fourth = await put(block(sasUri, 'b4'), 'x');
    expect([fourth.status, fourth.code]).toEqual([409, 'BlockCountExceedsLimit']);
    expect(fourth.text).toContain('a file holds at most 3 uncommitted blocks');
    // Replacing a block is no new block; past 1000 bytes in all it is refused.
    const over = await put(block(sasUri, 'b3'), 'y'.repeat(401));
    expect([over.status, over.code]).toEqual([413, 'RequestBodyTooLarge']);
    expect(over.text).toContain('the uncommitted blocks of a file may hold at most 1000 bytes');
    expect((await put(block(sasUri, 'b3'), 'y'.repeat(400))).status).toBe(201);
    const committed = await put(`${sasUri}&comp=blocklist`, blockList(['b1', 'b2', 'b3']));
    expect(committed.status).toBe(201);
    const fileid = new URL(sasUri).pathname.split('/').pop()!;
    expect(h.emulator.app.emulator.store.storedFiles.find(fileid)?.size).toBe(1000);
  });

  it("caps the uncommitted bytes of an organization's pending uploads together", async () => {
    const { h } = await start({ ...roomy, maxUncommittedBytes: 1000, maxPendingBytesPerOrganization: 1500 });
    const a = (await prepare(h)).body.sasUri as string;
    const b = (await prepare(h)).body.sasUri as string;
    expect((await put(block(a, 'a1'), 'x'.repeat(1000))).status).toBe(201);
    const over = await put(block(b, 'b1'), 'x'.repeat(501));
    expect([over.status, over.code]).toEqual([413, 'RequestBodyTooLarge']);
    expect(over.text).toContain(
      'the pending uploads of the organization may hold at most 1500 bytes of uncommitted blocks',
    );
    expect((await put(block(b, 'b1'), 'x'.repeat(500))).status).toBe(201);
    // Committing a's blocks makes them a document: the room is back.
    expect((await put(`${a}&comp=blocklist`, blockList(['a1']))).status).toBe(201);
    expect((await put(block(b, 'b2'), 'x'.repeat(500))).status).toBe(201);
  });

  it("refuses PrepareUpload past the organization's pending uploads with 429 and Retry-After", async () => {
    const { h, clock } = await start({ ...roomy, maxPendingPerOrganization: 2 });
    const first = await prepare(h);
    clock.advance(10 * 60_000);
    expect((await prepare(h)).status).toBe(200);
    const refused = await prepare(h);
    expect([refused.status, refused.retryAfter]).toEqual([429, String(50 * 60)]);
    expect(refused.body.message).toContain('pending uploads, the most it may have (2)');
    // An upload ends a pending one; then there is room again.
    const blob = { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/pdf' };
    expect((await put(first.body.sasUri, '%PDF-1.4', blob)).status).toBe(201);
    expect((await prepare(h)).status).toBe(200);
  });

  it('limits PrepareUpload per user, over sfapi and /TPFM/ alike, with 429 and Retry-After', async () => {
    const { h, clock } = await start({ prepareRate: { max: 2, windowMs: 60_000 } });
    expect((await prepare(h)).status).toBe(200);
    clock.advance(20_000);
    expect((await prepare(h)).status).toBe(200);
    const refused = await prepare(h);
    expect([refused.status, refused.retryAfter]).toEqual([429, '40']);
    expect(refused.body.message).toContain('too many PrepareUpload calls of this user: at most 2 in 60 s');
    const url = new URL('/TPFM/?Cmd=PrepareUpload&FileExtension=pdf&DocumentName=scan', h.base);
    const device = `Basic ${Buffer.from('04A1B2C3D4:demo-device').toString('base64')}`;
    const tpfm = await request(url, {
      headers: { authorization: device, 'x-lang-id': 'en', 'x-fmp-user-agent': 'upload-limit test' },
    });
    await tpfm.body.dump();
    expect([tpfm.statusCode, tpfm.headers['retry-after']]).toEqual([429, '40']);
    clock.advance(40_000);
    expect((await prepare(h)).status).toBe(200);
  });

  it('sweeps expired uploads, their blocks and records, on the clock', async () => {
    const { h, clock } = await start(roomy);
    const ctx = h.emulator.app.emulator;
    const { fileid, sasUri } = (await prepare(h)).body;
    expect((await put(block(sasUri, 'b1'), 'x'.repeat(100))).status).toBe(201);
    const blocks = join(h.dataDir, 'files', `${fileid}.blocks`);
    expect(existsSync(blocks)).toBe(true);
    clock.advance(HOUR - 1);
    expect(await ctx.files.sweepExpired()).toBe(0);
    expect(existsSync(blocks)).toBe(true);
    clock.advance(1);
    expect(await ctx.files.sweepExpired()).toBe(1);
    expect(existsSync(blocks)).toBe(false);
    expect(ctx.store.storedFiles.find(fileid)).toBeUndefined();
    const late = await put(block(sasUri, 'b2'), 'x');
    expect(late.status).toBe(403);
  });
});
