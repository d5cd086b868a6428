/**
 * The job document download as the file sender writes it (src/emulator/http/file-sender.ts):
 * from reused buffers, several at once, Range and If-Range, HEAD, the fault rules `cut` and
 * `slow_chunks_ms`, a client that hangs up mid-body, and the request log lines.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { get } from 'node:http';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { type ConnectorRig, startConnectorRig } from '../support/connector-rig.js';
import { call, DEMO, passwordToken } from './emulator-harness.js';

const MiB = 1024 * 1024;
/** Not a multiple of the 1 MiB buffers, so the last read of every download is a short one. */
const content = Buffer.from(Array.from({ length: 5 * MiB + 4321 }, (_, i) => (i * 7 + (i >> 12)) % 251));
const logLines: Record<string, unknown>[] = [];
let rig: ConnectorRig;
let adminToken: string;

beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') logLines.push(JSON.parse(line));
      done();
    },
  });
  rig = await startConnectorRig(
    { serial: 'SERVE-1', name: 'Serving', printer: 'Serving printer' },
    { logger: createLogger({ destination, level: 'info' }) },
  );
  adminToken = await passwordToken(rig.h.baseUrl, 'printing', DEMO.admin);
});
afterAll(async () => {
  await rig?.close();
});

const auth = () => ({ authorization: `Bearer ${rig.token}`, 'x-host-id': rig.connectorId });

/** A claimed job of `content`: its document URL and its file's path. */
async function claimedJob(): Promise<{ url: string; path: string }> {
  const jobId = rig.newJob(content);
  await call(rig.h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, rig.token);
  const path = rig.ctx.jobs.find(rig.orgId, jobId)?.file.path ?? '';
  return { url: `${rig.h.baseUrl}/connector/v1/jobs/${jobId}/document`, path };
}

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers: { ...auth(), ...headers } });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

/** Whether this process has `path` open (the emulator runs in the test's process). */
function isOpenHere(path: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

describe('document serving from reused buffers', () => {
  it('serves the whole file and two ranges of it at the same time, each its right bytes', async () => {
    const { url } = await claimedJob();
    const [whole, first, second] = await Promise.all([
      download(url),
      download(url, { range: `bytes=1000-${3 * MiB + 17}` }),
      download(url, { range: `bytes=${2 * MiB - 5}-` }),
    ]);
    expect([whole.status, first.status, second.status]).toEqual([200, 206, 206]);
    expect(whole.body.equals(content)).toBe(true);
    expect(first.body.equals(content.subarray(1000, 3 * MiB + 18))).toBe(true);
    expect(first.headers['content-range']).toBe(`bytes 1000-${3 * MiB + 17}/${content.length}`);
    expect(second.body.equals(content.subarray(2 * MiB - 5))).toBe(true);
    const sender = rig.ctx.documents;
    await sender.settled();
    expect(sender.pool.inUse).toBe(0);
    // Two buffers per download while it ran; the next downloads take them from the pool.
    const made = sender.pool.allocated;
    expect(made).toBeLessThanOrEqual(6);
    for (let i = 0; i < 3; i += 1) expect((await download(url)).body.equals(content)).toBe(true);
    expect(sender.pool.allocated).toBe(made);
  });

  it('honours If-Range, answers HEAD without a body and 416 past the end', async () => {
    const { url } = await claimedJob();
    const whole = await download(url, { range: 'bytes=0-0' });
    const etag = String(whole.headers['etag']);
    const resumed = await download(url, { range: `bytes=${content.length - 10}-`, 'if-range': etag });
    expect(resumed.status).toBe(206);
    expect(resumed.body.equals(content.subarray(content.length - 10))).toBe(true);
    const stale = await download(url, { range: 'bytes=0-9', 'if-range': '"other"' });
    expect([stale.status, stale.body.length]).toEqual([200, content.length]);
    const head = await request(url, { method: 'HEAD', headers: { ...auth(), range: 'bytes=10-19' } });
    expect([head.statusCode, head.headers['content-length'], head.headers['content-range']]).toEqual([
      206,
      '10',
      `bytes 10-19/${content.length}`,
    ]);
    expect((await head.body.arrayBuffer()).byteLength).toBe(0);
    const beyond = await download(url, { range: `bytes=${content.length}-` });
    expect([beyond.status, beyond.headers['content-range'], beyond.body.length]).toEqual([
      416,
      `bytes */${content.length}`,
      0,
    ]);
  });

  it('frees the buffers and closes the file when the client hangs up mid-body', async () => {
    const big = Buffer.alloc(48 * MiB, 0x41);
    const jobId = rig.newJob(big);
    await call(rig.h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, rig.token);
    const path = rig.ctx.jobs.find(rig.orgId, jobId)?.file.path ?? '';
    const received = await new Promise<number>((resolve, reject) => {
      const req = get(`${rig.h.baseUrl}/connector/v1/jobs/${jobId}/document`, { headers: auth() }, (res) => {
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(chunk.length);
        });
      });
      req.on('error', (error) => {
        if (!req.destroyed) reject(error);
      });
    });
    expect(received).toBeGreaterThan(0);
    const sender = rig.ctx.documents;
    await sender.settled();
    expect([sender.pool.inUse, sender.active]).toEqual([0, 0]);
    expect(path).not.toBe('');
    expect(isOpenHere(path)).toBe(false);
    const line = logLines.find((l) => l['msg'] === 'document download ended early by its client');
    expect(line).toMatchObject({ path: `/connector/v1/jobs/${jobId}/document`, status: 200 });
    expect(Number(line?.['bytes'])).toBeLessThan(big.length);
  });
});

describe('fault rules and the request log on document downloads', () => {
  const addRule = async (rule: Record<string, unknown>) => {
    const added = await call(rig.h.baseUrl, 'POST', '/_emulator/faults', adminToken, rule);
    expect(added.status).toBe(201);
    return (added.body as { id: string }[])[0]!.id;
  };

  it('cut: the headers and half the body, then the connection closes; the next download is whole', async () => {
    const { url } = await claimedJob();
    const id = await addRule({ operation: 'GetJobDocument', cut: true, times: 1 });
    const { status, fault, bytes, error } = await new Promise<{
      status: number;
      fault: unknown;
      bytes: number;
      error: boolean;
    }>((resolve) => {
      const req = get(url, { headers: auth() }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        const done = (error: boolean) =>
          resolve({ status: res.statusCode ?? 0, fault: res.headers['x-printrelay-fault'], bytes, error });
        res.on('end', () => done(false));
        res.on('error', () => done(true));
        res.on('aborted', () => done(true));
      });
      req.on('error', () => undefined);
    });
    expect([status, fault, error]).toEqual([200, id, true]);
    expect(bytes).toBe(Math.ceil(content.length / 2));
    await rig.ctx.documents.settled();
    expect(logLines.some((l) => l['msg'] === 'document download cut by a fault rule')).toBe(true);
    expect((await download(url)).body.equals(content)).toBe(true);
  });

  it('slow_chunks_ms: a range sent in 16 KiB pieces, its bytes intact', async () => {
    const { url } = await claimedJob();
    const id = await addRule({ operation: 'GetJobDocument', slow_chunks_ms: 1, times: 1 });
    const slow = await download(url, { range: 'bytes=100-100099' });
    expect([slow.status, slow.headers['x-printrelay-fault']]).toEqual([206, id]);
    expect(slow.body.equals(content.subarray(100, 100100))).toBe(true);
  });

  it('logs a completed download with its path (no query) and status', async () => {
    const { url } = await claimedJob();
    const path = new URL(url).pathname;
    await download(`${url}?claim=0`, { range: 'bytes=0-99' });
    await rig.ctx.documents.settled();
    const line = logLines.find((l) => l['msg'] === 'request completed' && l['path'] === path);
    expect(line).toMatchObject({ method: 'GET', status: 206 });
  });
});
