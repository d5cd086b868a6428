import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimRefusedError, claimingDownload } from '../../src/agent/jobs/claiming-download.js';
import { ChannelClient } from '../../src/client/channel-client.js';
import { HttpClient, HttpError } from '../../src/client/http-base.js';
import type { EmulatorContext } from '../../src/emulator/context.js';
import { type ConnectorRig, startConnectorRig } from '../support/connector-rig.js';
import { call, DEMO, type Harness, registration } from './emulator-harness.js';

let rig: ConnectorRig;
let h: Harness;
let ctx: EmulatorContext;
let token: string;
let connectorId: string;
let printerId: string;
let work: string;
/** Forwards to the emulator without the download's `claim` parameter: a cloud of protocol 1. */
let protocolOne: Server;
let protocolOneUrl: string;
/** Forwards to the emulator unchanged, recording each request as `<method> <path and query>`. */
let recording: Server;
let recordingUrl: string;
let recorded: string[] = [];
/** When set, protocolOne answers a claim request with this status instead of forwarding it. */
let claimAnswer: number | undefined;
const content = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 7) % 251));

beforeAll(async () => {
  rig = await startConnectorRig({ serial: 'CD-1', name: 'Claiming', printer: 'Claiming printer' });
  ({ h, ctx, token, connectorId, printerId } = rig);
  work = mkdtempSync(join(tmpdir(), 'claiming-download-'));
  protocolOne = createServer((req, res) => {
    const url = new URL(req.url ?? '/', h.baseUrl);
    url.searchParams.delete('claim');
    if (claimAnswer !== undefined && req.method === 'POST' && url.pathname.endsWith('/claim')) {
      res.writeHead(claimAnswer, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'bad_request', message: 'claim refused by the test' }));
      return;
    }
    request(url, {
      method: req.method as 'GET' | 'POST',
      headers: req.headers,
      body: req.method === 'GET' ? null : req,
    })
      .then(async (answer) => {
        res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
        await pipeline(answer.body, res);
      })
      .catch((error) => res.destroy(error));
  });
  await new Promise<void>((resolve) => protocolOne.listen(0, '127.0.0.1', resolve));
  protocolOneUrl = `http://127.0.0.1:${(protocolOne.address() as AddressInfo).port}`;
  recording = createServer((req, res) => {
    recorded.push(`${req.method} ${req.url}`);
    request(new URL(req.url ?? '/', h.baseUrl), {
      method: req.method as 'GET' | 'POST',
      headers: req.headers,
      body: req.method === 'GET' ? null : req,
    })
      .then(async (answer) => {
        res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
        await pipeline(answer.body, res);
      })
      .catch((error) => res.destroy(error));
  });
  await new Promise<void>((resolve) => recording.listen(0, '127.0.0.1', resolve));
  recordingUrl = `http://127.0.0.1:${(recording.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => protocolOne.close(resolve));
  await new Promise((resolve) => recording.close(resolve));
  await rig.close();
  rmSync(work, { recursive: true, force: true });
});

const newJob = (): string => rig.newJob(content);

async function withChannel<T>(baseUrl: string, use: (channel: ChannelClient) => Promise<T>): Promise<T> {
  const http = new HttpClient({
    baseUrl,
    timeoutMs: 10_000,
    tokens: { token: async () => token, invalidate: () => {} },
  });
  try {
    return await use(new ChannelClient(http));
  } finally {
    await http.close();
  }
}

const offerOf = (jobId: string) => ctx.jobs.offer(ctx.store.jobs.findById(jobId)!);

describe('claimingDownload', () => {
  it('claims the job with its download (protocol 2): one request, the file whole and checked', async () => {
    const jobId = newJob();
    const target = join(work, `${jobId}.pdf`);
    const before = ctx.store.jobs.findById(jobId)!.claimedBy;
    recorded = [];
    await withChannel(recordingUrl, (channel) =>
      claimingDownload(channel, offerOf(jobId), target, new AbortController().signal),
    );
    expect(before).toBeNull();
    expect(recorded).toEqual([`GET /connector/v1/jobs/${jobId}/document?claim=1`]);
    expect(readFileSync(target).equals(content)).toBe(true);
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
  });

  it('claims the old way when the cloud speaks protocol 1, then downloads', async () => {
    const jobId = newJob();
    const target = join(work, `${jobId}.pdf`);
    await withChannel(protocolOneUrl, (channel) =>
      claimingDownload(channel, offerOf(jobId), target, new AbortController().signal),
    );
    expect(readFileSync(target).equals(content)).toBe(true);
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
  });

  it('a job another connector holds gives ClaimRefusedError and no file', async () => {
    const jobId = newJob();
    const other = (
      await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('CD-2', 'Other'))
    ).body.id;
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, { connector_id: other });
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token, undefined, {
      'x-host-id': other,
    });
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, {
      connector_id: connectorId,
    });
    const target = join(work, `${jobId}.pdf`);
    for (const url of [h.baseUrl, protocolOneUrl]) {
      const error = await withChannel(url, (channel) =>
        claimingDownload(channel, offerOf(jobId), target, new AbortController().signal),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimRefusedError);
      expect((error as ClaimRefusedError).code).toBe('claim_refused');
      expect((error as Error).message).toBe(
        `job ${jobId} is not this connector's to print: HTTP 409: job ${jobId} is held by another connector`,
      );
    }
    expect(existsSync(target)).toBe(false);
    expect(ctx.store.jobs.findById(jobId)?.claimedBy).toBe(other);
  });

  it('a claim that fails otherwise than with 409 is passed on as it is, not taken for a refusal', async () => {
    const jobId = newJob();
    const target = join(work, `${jobId}.pdf`);
    claimAnswer = 400;
    try {
      const error = await withChannel(protocolOneUrl, (channel) =>
        claimingDownload(channel, offerOf(jobId), target, new AbortController().signal),
      ).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(ClaimRefusedError);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(400);
    } finally {
      claimAnswer = undefined;
    }
    expect(existsSync(target)).toBe(false);
    expect(ctx.store.jobs.findById(jobId)?.claimedBy).toBeNull();
  });

  it('downloads again for the connector that holds the job, into memory; 410 once the job ended', async () => {
    const jobId = newJob();
    const target = join(work, `${jobId}.pdf`);
    const signal = new AbortController().signal;
    // First into memory (claiming), then again as after a restart that lost it: same bytes, no file.
    for (let i = 0; i < 2; i++) {
      const bytes = await withChannel(h.baseUrl, (channel) =>
        claimingDownload(channel, offerOf(jobId), target, signal, content.length),
      );
      expect(Buffer.isBuffer(bytes) && bytes.equals(content)).toBe(true);
      expect(existsSync(target)).toBe(false);
    }
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
    const user = ctx.store.users.findByEmail(DEMO.admin.email)!;
    expect(ctx.jobs.cancel(user.organizationId, jobId)).toBe(true);
    const error = await withChannel(h.baseUrl, (channel) =>
      claimingDownload(channel, offerOf(jobId), target, signal, content.length),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(410);
    expect((error as Error).message).toMatch(/already ended \(cancelled\); its document is no longer served/);
  });

  it('resumes a partial download with Range and checks the hash of the whole file', async () => {
    const jobId = newJob();
    const target = join(work, `${jobId}.pdf`);
    writeFileSync(target, content.subarray(0, 1_000_001));
    await withChannel(h.baseUrl, (channel) =>
      claimingDownload(channel, offerOf(jobId), target, new AbortController().signal),
    );
    expect(readFileSync(target).equals(content)).toBe(true);
  });
});
