import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { defaultTicket } from '../../src/protocol/print-ticket.js';
import type { JobEvent, JobOffer, ServerMessage } from '../../src/protocol/connector-channel.js';
import { CHANNEL_CLOSE } from '../../src/protocol/connector-channel.js';
import type { EmulatorContext } from '../../src/emulator/context.js';
import { type ConnectorRig, startConnectorRig } from '../support/connector-rig.js';
import { describeEventBatches } from './emulator-event-batch-cases.js';
import { call, DEMO, type Harness, passwordToken, registration } from './emulator-harness.js';

let rig: ConnectorRig;
let h: Harness;
let ctx: EmulatorContext;
let token: string;
let connectorId: string;
let printerId: string;
let orgId: string;
const content = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

beforeAll(async () => {
  rig = await startConnectorRig({ serial: 'CH-1', name: 'Channel', printer: 'Channel printer' });
  ({ h, ctx, token, connectorId, printerId, orgId } = rig);
});
afterAll(async () => {
  await rig.close();
});

/** A job of `content` on the connector's printer (or `printer`), two copies. */
async function newJob(options: { deleteAfterPrint?: boolean; printer?: string } = {}): Promise<string> {
  return rig.newJob(content, {
    name: 'report.pdf',
    ticket: { ...defaultTicket, copies: 2 },
    ...(options.printer ? { printerId: options.printer } : {}),
    ...(options.deleteAfterPrint ? { deleteAfterPrint: true } : {}),
  });
}

let seqCounter = 0;
function event(kind: JobEvent['kind'], seq: number, extra: Partial<JobEvent> = {}): JobEvent {
  return { event_id: `ev-${++seqCounter}`, seq, kind, at: new Date(h.clock.now()).toISOString(), ...extra };
}
const postEvent = (jobId: string, e: JobEvent) =>
  call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/events`, token, e);

/** Opens the channel and collects server messages. */
function openChannel(bearer: string): Promise<{
  socket: WebSocket;
  messages: ServerMessage[];
  next(type: string): Promise<ServerMessage>;
  closed: Promise<number>;
}> {
  const socket = new WebSocket(`${h.baseUrl.replace('http', 'ws')}/connector/v1/channel`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  const messages: ServerMessage[] = [];
  const waiting: { type: string; resolve: (m: ServerMessage) => void }[] = [];
  let seen = 0;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as ServerMessage;
    messages.push(message);
    const i = waiting.findIndex((w) => w.type === message.type);
    if (i >= 0) {
      seen = messages.length;
      waiting.splice(i, 1)[0]!.resolve(message);
    }
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  const next = (type: string): Promise<ServerMessage> => {
    const found = messages.slice(seen).find((m) => m.type === type);
    if (found) {
      seen = messages.indexOf(found) + 1;
      return Promise.resolve(found);
    }
    return new Promise((resolve) => waiting.push({ type, resolve }));
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, messages, next, closed }));
    socket.once('error', reject);
  });
}

describe('register', () => {
  it('is idempotent by serial_string and makes readable names unique', async () => {
    const first = await call(
      h.baseUrl,
      'POST',
      '/connector/v1/register',
      token,
      registration('REG-1', 'Front desk'),
    );
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      readable_name: 'Front desk',
      status: 'Online',
      serial_string: 'REG-1',
      organization_id: orgId,
    });
    const again = await call(h.baseUrl, 'POST', '/connector/v1/register', token, {
      ...registration('REG-1', 'Front desk'),
      internal_ip: '10.0.0.9',
      sw_version: '0.2.0',
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      id: first.body.id,
      tpuid: first.body.tpuid,
      internal_ip: '10.0.0.9',
      sw_version: '0.2.0',
      readable_name: 'Front desk',
    });
    const other = await call(
      h.baseUrl,
      'POST',
      '/connector/v1/register',
      token,
      registration('REG-2', 'Front desk'),
    );
    expect(other.status).toBe(201);
    expect(other.body.readable_name).toBe('Front desk (2)');
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('names every bad field', async () => {
    const res = await call(h.baseUrl, 'POST', '/connector/v1/register', token, {
      ...registration(''),
      type: 'Toaster',
      os_type: 'BeOS',
      supported_formats: 'PDF,DOCX',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'os_type',
      'serial_string',
      'supported_formats',
      'type',
    ]);
  });
});

describe('printer properties', () => {
  it('defaults with Trays [null] until uploaded, then the upload merged with Id, Name, Location, TPUID', async () => {
    const before = ctx.printers.properties(orgId, printerId)!;
    expect(before.Trays).toEqual([null]);
    expect(before).toMatchObject({ Id: printerId, Name: 'Channel printer', TPUID: expect.any(Number) });
    const upload = {
      ...before,
      Driver: 'IPP Everywhere',
      ColorSupported: true,
      Trays: [{ Index: 1, Name: 'Tray 1', Default: true }],
    };
    const bad = await call(h.baseUrl, 'PUT', `/connector/v1/printers/${printerId}/properties`, token, {
      properties: { ...upload, Trays: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('properties.Trays');
    const res = await call(h.baseUrl, 'PUT', `/connector/v1/printers/${printerId}/properties`, token, {
      properties: upload,
    });
    expect(res.status).toBe(204);
    const after = ctx.printers.properties(orgId, printerId)!;
    expect(after).toMatchObject({
      Driver: 'IPP Everywhere',
      ColorSupported: true,
      Id: printerId,
      Name: 'Channel printer',
    });
    expect(after.Trays).toEqual([{ Index: 1, Name: 'Tray 1', Default: true }]);
    expect(ctx.printers.properties(orgId, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});

describe('job delivery', () => {
  it('WebSocket: hello, offers of pending jobs on connect, live offers and cancels', async () => {
    const pending = await newJob();
    const channel = await openChannel(token);
    const hello = await channel.next('hello');
    expect(hello).toMatchObject({
      type: 'hello',
      connector_id: connectorId,
      heartbeat_s: expect.any(Number),
    });
    const first = (await channel.next('job.offer')) as { job: JobOffer };
    expect(first.job).toMatchObject({
      job_id: pending,
      printer_id: printerId,
      ticket: { copies: 2 },
      user: { email: DEMO.admin.email },
    });
    expect(first.job.document).toMatchObject({
      size: content.length,
      extension: 'pdf',
      content_type: 'application/pdf',
      name: 'report.pdf',
    });
    expect(ctx.store.connectors.findById(connectorId)!.status).toBe('Online');

    const live = await newJob();
    const second = (await channel.next('job.offer')) as { job: JobOffer };
    expect(second.job.job_id).toBe(live);
    expect(ctx.jobs.cancel(orgId, live)).toBe(true);
    expect(await channel.next('job.cancel')).toEqual({ type: 'job.cancel', job_id: live });
    expect(ctx.jobs.status(orgId, live)!.jobstatusstring).toBe('DELETED|');

    channel.socket.close();
    await channel.closed;
    await expect.poll(() => ctx.store.connectors.findById(connectorId)!.status).toBe('Offline');
    // Leave no pending job behind for the poll tests.
    ctx.jobs.cancel(orgId, pending);
  });

  it('WebSocket: a bad token closes with 4401, a caller without a connector with 4404', async () => {
    const bad = await openChannel('nope');
    expect(await bad.closed).toBe(CHANNEL_CLOSE.unauthorized);
    const stranger = await passwordToken(h.baseUrl, 'printing.connectors', DEMO.user);
    const unknown = await openChannel(stranger);
    expect(await unknown.closed).toBe(CHANNEL_CLOSE.unknownConnector);
  });

  it('a newer channel replaces an older one (4409)', async () => {
    const older = await openChannel(token);
    await older.next('hello');
    const newer = await openChannel(token);
    await newer.next('hello');
    expect(await older.closed).toBe(CHANNEL_CLOSE.replaced);
    newer.socket.close();
    await newer.closed;
  });

  it('long poll: answers at once when jobs are pending, otherwise when a job arrives', async () => {
    const empty = await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=0', token);
    expect(empty.body).toEqual({ jobs: [] });
    const waiting = call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=30', token);
    await expect.poll(() => ctx.hub['waiters'].size).toBe(1);
    const jobId = await newJob();
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: JobOffer) => j.job_id)).toEqual([jobId]);
    const immediate = await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=30', token);
    expect(immediate.body.jobs.map((j: JobOffer) => j.job_id)).toEqual([jobId]);
    expect((await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=9999', token)).body.field).toBe('wait');
    ctx.jobs.cancel(orgId, jobId);
  });

  it('claim: the owner claims (again), another connector gets 409, a stranger 404', async () => {
    const jobId = await newJob();
    const claimed = await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);
    expect(claimed.status).toBe(200);
    expect(claimed.body.job_id).toBe(jobId);
    expect((await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token)).status).toBe(200);

    // The printer moves to a second connector, which now sees the job held by the first.
    const second = (
      await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('CH-2', 'Second'))
    ).body.id;
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, { connector_id: second });
    const conflict = await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token, undefined, {
      'x-host-id': second,
    });
    expect(conflict.status).toBe(409);
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, {
      connector_id: connectorId,
    });
    const unknown = await call(
      h.baseUrl,
      'POST',
      '/connector/v1/jobs/00000000-0000-4000-8000-000000000000/claim',
      token,
      undefined,
      { 'x-host-id': connectorId },
    );
    expect(unknown.status).toBe(404);
    ctx.jobs.cancel(orgId, jobId);
  });
});

describe('claimed but never reported received', () => {
  it('is offered again to its holder (channel and poll) until "received" arrives, never to another connector', async () => {
    const jobId = await newJob();
    expect((await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token)).status).toBe(200);
    // The holder died before recording the job: it reconnects and gets the offer again.
    const channel = await openChannel(token);
    const offer = (await channel.next('job.offer')) as { job: JobOffer };
    expect(offer.job.job_id).toBe(jobId);
    channel.socket.close();
    await channel.closed;
    const polled = await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=0', token);
    expect(polled.body.jobs.map((j: JobOffer) => j.job_id)).toEqual([jobId]);
    // A re-offered claim does not end a long poll early; new work does, and both come back.
    const waiting = call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=30', token);
    await expect.poll(() => ctx.hub['waiters'].size).toBe(1);
    const fresh = await newJob();
    expect((await waiting).body.jobs.map((j: JobOffer) => j.job_id)).toEqual([jobId, fresh]);
    ctx.jobs.cancel(orgId, fresh);

    // Another connector never sees it.
    const other = (
      await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('CH-3', 'Third'))
    ).body.id;
    const foreign = await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=0', token, undefined, {
      'x-host-id': other,
    });
    expect(foreign.body.jobs).toEqual([]);

    expect((await postEvent(jobId, event('received', 1))).status).toBe(204);
    expect((await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=0', token)).body.jobs).toEqual([]);
    ctx.jobs.cancel(orgId, jobId);
  });
});

describe('protocol 2: the claim rides on the download and on the first event', () => {
  const auth = () => ({ authorization: `Bearer ${token}`, 'x-host-id': connectorId });

  it('hello names protocol 2', async () => {
    const channel = await openChannel(token);
    expect(await channel.next('hello')).toEqual({
      type: 'hello',
      connector_id: connectorId,
      heartbeat_s: ctx.hub.heartbeatS,
      protocol: 2,
    });
    channel.socket.close();
    await channel.closed;
  });

  it('a download with claim=1 claims the pending job; a bad claim value is a 400 naming claim', async () => {
    const jobId = await newJob();
    const url = `${h.baseUrl}/connector/v1/jobs/${jobId}/document`;
    const bad = await request(`${url}?claim=yes`, { headers: auth() });
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as { field: string }).field).toBe('claim');
    const res = await request(`${url}?claim=1`, { headers: auth() });
    expect(res.statusCode).toBe(200);
    expect(Buffer.from(await res.body.arrayBuffer()).equals(content)).toBe(true);
    expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
    // Claimed but not yet received: offered again to its holder only.
    const polled = await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=0', token);
    expect(polled.body.jobs.map((j: JobOffer) => j.job_id)).toEqual([jobId]);
    ctx.jobs.cancel(orgId, jobId);
  });

  it('an event batch claims the unclaimed jobs it reports, several in one request', async () => {
    const first = await newJob();
    const second = await newJob();
    const batch = await call(h.baseUrl, 'POST', '/connector/v1/events', token, {
      events: [
        { job_id: first, event: event('received', 1) },
        { job_id: second, event: event('received', 1) },
      ],
    });
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([204, 204]);
    for (const id of [first, second]) {
      expect(ctx.store.jobs.findById(id)).toMatchObject({ state: 'received', claimedBy: connectorId });
    }
    expect((await call(h.baseUrl, 'GET', '/connector/v1/jobs?wait=0', token)).body.jobs).toEqual([]);
    // The download needs no claim of its own now.
    const res = await request(`${h.baseUrl}/connector/v1/jobs/${first}/document`, { headers: auth() });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    ctx.jobs.cancel(orgId, first);
    ctx.jobs.cancel(orgId, second);
  });

  it('a claiming download of a job another connector holds answers 409 and moves nothing', async () => {
    const jobId = await newJob();
    expect((await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token)).status).toBe(200);
    const second = (
      await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('CH-4', 'Fourth'))
    ).body.id;
    await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, { connector_id: second });
    try {
      const res = await request(`${h.baseUrl}/connector/v1/jobs/${jobId}/document?claim=1`, {
        headers: { authorization: `Bearer ${token}`, 'x-host-id': second },
      });
      expect(res.statusCode).toBe(409);
      await res.body.dump();
      expect(ctx.store.jobs.findById(jobId)).toMatchObject({ state: 'claimed', claimedBy: connectorId });
    } finally {
      await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${printerId}/`, token, {
        connector_id: connectorId,
      });
    }
    ctx.jobs.cancel(orgId, jobId);
  });
});

describe('document download', () => {
  it('streams the whole file with ETag and Content-Length, and byte ranges with 206 and 416', async () => {
    const jobId = await newJob();
    const url = `${h.baseUrl}/connector/v1/jobs/${jobId}/document`;
    const auth = { authorization: `Bearer ${token}`, 'x-host-id': connectorId };
    const unclaimed = await request(url, { headers: auth });
    expect(unclaimed.statusCode).toBe(409);
    await unclaimed.body.dump();
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);

    const whole = await request(url, { headers: auth });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-length']).toBe(String(content.length));
    const sha = createHash('sha256').update(content).digest('hex');
    expect(whole.headers['etag']).toBe(`"${sha}"`);
    expect(Buffer.from(await whole.body.arrayBuffer()).equals(content)).toBe(true);

    const cases: [string, number, number, number][] = [
      ['bytes=100-199', 100, 199, 206],
      ['bytes=4000-', 4000, 4999, 206],
      ['bytes=-10', 4990, 4999, 206],
      ['bytes=4990-99999', 4990, 4999, 206],
    ];
    for (const [range, start, end, status] of cases) {
      const res = await request(url, { headers: { ...auth, range } });
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${content.length}`);
      expect(Buffer.from(await res.body.arrayBuffer()).equals(content.subarray(start, end + 1))).toBe(true);
    }
    const beyond = await request(url, { headers: { ...auth, range: 'bytes=5000-' } });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${content.length}`);
    await beyond.body.dump();
    const stale = await request(url, { headers: { ...auth, range: 'bytes=0-9', 'if-range': '"other"' } });
    expect(stale.statusCode).toBe(200);
    await stale.body.dump();
    ctx.jobs.cancel(orgId, jobId);
  });
});

describe('events and status', () => {
  it('drives the status through every state with the spec codes and flags', async () => {
    expect(ctx.jobs.status(orgId, 'no-such-job')).toBeUndefined();
    const jobId = await newJob();
    const status = () => ctx.jobs.status(orgId, jobId)!;
    expect(status()).toMatchObject({ jobstatus: 1246, jobposition: 1 });
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);
    expect(status().jobstatus).toBe(1246);
    const steps: [JobEvent['kind'], Partial<JobEvent>, number, string][] = [
      ['received', {}, 129, 'SPOOLING|'],
      ['downloading', {}, 129, 'SPOOLING|'],
      ['printing', { pages_total: 4, printer_job_id: '17' }, 129, 'PRINTING|'],
      ['progress', { pages_printed: 2 }, 129, 'PRINTING|'],
      ['completed', { pages_printed: 4 }, 0, 'PRINTED|COMPLETE|'],
    ];
    let seq = 0;
    for (const [kind, extra, code, flags] of steps) {
      expect((await postEvent(jobId, event(kind, ++seq, extra))).status).toBe(204);
      expect(status()).toMatchObject({ jobstatus: code, jobstatusstring: flags });
    }
    expect(status()).toEqual({
      jobpagesprinted: 4,
      jobpagestotal: 4,
      jobposition: 0,
      jobstatus: 0,
      jobstatusstring: 'PRINTED|COMPLETE|',
    });
  });

  it('failed jobs answer 3011 or the connector error code, with its reason after the flags', async () => {
    const plain = await newJob();
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${plain}/claim`, token);
    await postEvent(plain, event('failed', 1));
    expect(ctx.jobs.status(orgId, plain)).toMatchObject({
      jobstatus: 3011,
      jobstatusstring: 'ERROR|RESTART|',
    });
    const coded = await newJob();
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${coded}/claim`, token);
    await postEvent(coded, event('failed', 1, { error_code: 1804, message: 'paper jam' }));
    expect(ctx.jobs.status(orgId, coded)).toMatchObject({
      jobstatus: 1804,
      jobstatusstring: 'ERROR|RESTART|paper jam|',
    });
  });

  it('applies events once (event_id) and in seq order; a finished job stays finished', async () => {
    const jobId = await newJob();
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);
    const printing = event('printing', 2, { pages_total: 3 });
    expect((await postEvent(jobId, printing)).status).toBe(204);
    expect((await postEvent(jobId, printing)).status).toBe(204);
    expect((await postEvent(jobId, event('received', 1))).status).toBe(204);
    expect(ctx.jobs.status(orgId, jobId)!.jobstatusstring).toBe('PRINTING|');
    await postEvent(jobId, event('completed', 3));
    await postEvent(jobId, event('failed', 4));
    expect(ctx.jobs.status(orgId, jobId)!.jobstatus).toBe(0);
    const bad = await postEvent(jobId, { ...event('printing', 0), kind: 'exploded' as never });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['kind', 'seq']);
  });

  it('printanddelete removes the stored file once the job ends', async () => {
    const jobId = await newJob({ deleteAfterPrint: true });
    const path = ctx.store.jobs.findById(jobId)!.file.path;
    await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);
    await postEvent(jobId, event('printing', 1));
    expect(existsSync(path)).toBe(true);
    await postEvent(jobId, event('completed', 2));
    expect(existsSync(path)).toBe(false);
    const gone = await call(h.baseUrl, 'GET', `/connector/v1/jobs/${jobId}/document`, token);
    expect(gone.status).toBe(410);
  });

  it('counts queue positions per printer', async () => {
    const a = await newJob();
    const b = await newJob();
    expect(ctx.jobs.status(orgId, b)!.jobposition).toBe(ctx.jobs.status(orgId, a)!.jobposition + 1);
    ctx.jobs.cancel(orgId, a);
    ctx.jobs.cancel(orgId, b);
  });
});

describeEventBatches(() => ({ h, token, orgId, newJob, event }));
