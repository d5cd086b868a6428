import { spawn } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TpfmClient, type TpfmProgressEvent } from '../../src/client/tpfm-client.js';
import { silentLogger } from '../../src/log/logger.js';
import { decodeErrText } from '../../src/protocol/tpfm-codes.js';
import { parseJobListBody } from '../../src/protocol/tpfm-bodies.js';
import { peersAvailable } from '../support/peers.js';
import { call } from './emulator-harness.js';
import {
  AgentDriver,
  ALICE_CARD,
  DEMO,
  DEVICE_PASSWORD,
  holdJob,
  releasedJob,
  startTpfmHarness,
  type TpfmHarness,
  tpfm,
} from './emulator-tpfm-harness.js';

let h: TpfmHarness;
let client: TpfmClient;
const alice = { user: ALICE_CARD };

beforeAll(async () => {
  h = await startTpfmHarness();
  client = new TpfmClient({
    baseUrl: h.baseUrl,
    password: DEVICE_PASSWORD,
    userAgent: 'PrintRelay test station',
    lang: 'de',
    logger: silentLogger(),
  });
});
let closed = false;
afterAll(async () => {
  if (!closed) await h.close();
  await client.close();
});

const held = async (alias: string) => `${await holdJob(h, alias)}.pdf`;
const released = (alias: string) => releasedJob(h, h.demoPrinterId, alias);
const heldNames = async () =>
  parseJobListBody((await tpfm(h, 'GetJobList', { ShowPutOnHoldJobs: 1 }, alice)).body).map(
    (j) => j.fileName,
  );

/** Runs `curl --raw -i` for a PrintJob; resolves with everything curl printed. */
function curlPrintJob(query: string): Promise<string> {
  const auth = Buffer.from(`${ALICE_CARD}:${DEVICE_PASSWORD}`).toString('base64');
  const child = spawn('curl', [
    '--raw',
    '-i',
    '-s',
    '-H',
    'X-Lang-ID: en',
    '-H',
    'X-FMP-User-Agent: curl',
    '-H',
    `Authorization: Basic ${auth}`,
    `${h.baseUrl}/TPFM/?Cmd=PrintJob&${query}`,
  ]);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('latin1');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`curl exited ${code}`))));
  });
}

describe.runIf(peersAvailable('curl'))('PrintJob over the wire (curl --raw)', () => {
  it('streams chunked progress, the in-band result, the zero chunk and the trailer', async () => {
    const job = await held('Curl job');
    const output = curlPrintJob(`Job=${job}&Printer=${encodeURIComponent(DEMO.printer.name)}`);
    const agent = new AgentDriver(h, await released('Curl job'));
    await agent.claim();
    await agent.event('received');
    await agent.event('printing', { pages_printed: 1, pages_total: 2 });
    await agent.event('progress', { pages_printed: 2, pages_total: 2 });
    await agent.event('completed', { pages_printed: 2, pages_total: 2 });
    const raw = await output;
    const [head, body] = raw.split('\r\n\r\n', 2) as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head).toMatch(/\r\ntransfer-encoding: chunked/i);
    expect(head).toMatch(/\r\nx-fmp-procid: \d+/i);
    expect(head).toMatch(/\r\nx-fmp-progresstype: Pages/i);
    expect(head).toMatch(/\r\ntrailer: X-FMP-Return, X-FMP-ErrText, X-FMP-OSError, X-FMP-OSErrText/i);
    const rest = raw.slice(head.length + 4);
    expect(rest).toBe(
      '5\r\n1/2\r\n\r\n5\r\n2/2\r\n\r\n11\r\nX-FMP-Return: 0\r\n\r\n0\r\nX-FMP-Return: 0\r\n\r\n',
    );
    expect(body.length).toBeGreaterThan(0);
    expect(await heldNames()).not.toContain(job);
    // The app that printed to the queue keeps polling the id Print gave it: the released job's status.
    const status = await call<{ jobstatus: number; jobstatusstring: string }>(
      h.baseUrl,
      'GET',
      `/sfapi/Status?id=${job.replace(/\.pdf$/, '')}`,
      h.aliceToken,
    );
    expect(status.body).toMatchObject({ jobstatus: 0, jobstatusstring: 'PRINTED|COMPLETE|' });
  });

  it('sends only the result with Progress=0 and keeps the job with Delete=0', async () => {
    const job = await held('Quiet job');
    const output = curlPrintJob(`Job=${job}&Progress=0&Delete=0`);
    const agent = new AgentDriver(h, await released('Quiet job'));
    await agent.claim();
    await agent.event('printing', { pages_printed: 1, pages_total: 1 });
    await agent.event('completed');
    const raw = await output;
    const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
    expect(head).not.toMatch(/x-fmp-progresstype/i);
    expect(raw.slice(head.length + 4)).toBe('11\r\nX-FMP-Return: 0\r\n\r\n0\r\nX-FMP-Return: 0\r\n\r\n');
    expect(await heldNames()).toContain(job);
  });

  it('puts the error headers into the trailer when the printer fails (code 1 with the OS error)', async () => {
    const job = await held('Failing job');
    const output = curlPrintJob(`Job=${job}`);
    const agent = new AgentDriver(h, await released('Failing job'));
    await agent.claim();
    await agent.event('failed', { error_code: 3011, message: 'paper jam' });
    const raw = await output;
    const trailer = raw.slice(raw.indexOf('0\r\nX-FMP-Return: 1'));
    expect(raw).toContain('11\r\nX-FMP-Return: 1\r\n\r\n');
    expect(trailer).toMatch(/\r\nX-FMP-OSError: 3011\r\n/i);
    const osText = /X-FMP-OSErrText: (\S+)/i.exec(trailer)![1];
    expect(decodeErrText(osText)).toBe('paper jam');
    const errText = /X-FMP-ErrText: (\S+)/i.exec(trailer)![1];
    expect(decodeErrText(errText)).toBe('Operating system error on the server');
    expect(await heldNames()).toContain(job);
  });
});

describe('PrintJob with the project client', () => {
  it('reads progress events and the trailer result; Delete=0 keeps the job', async () => {
    const job = await held('Client job');
    const run = await client.printJob(ALICE_CARD, {
      job,
      printer: h.demoPrinterId,
      delete: false,
      copies: 2,
    });
    expect(run.procId).toBeGreaterThan(0);
    expect(run.progressType).toBe('Pages');
    const jobId = await released('Client job');
    expect(h.emulator.app.emulator.store.jobs.findById(jobId)!.ticket.copies).toBe(2);
    const agent = new AgentDriver(h, jobId);
    const events: TpfmProgressEvent[] = [];
    const reading = (async () => {
      for await (const event of run) events.push(event);
    })();
    await agent.claim();
    await agent.event('printing', { pages_printed: 0, pages_total: 3 });
    await agent.event('progress', { pages_printed: 3, pages_total: 3 });
    await agent.event('completed');
    await reading;
    expect(events).toEqual([
      { kind: 'pages', page: 0, total: 3 },
      { kind: 'pages', page: 3, total: 3 },
    ]);
    expect(await run.result()).toMatchObject({ code: 0, source: 'trailer' });
    expect(await heldNames()).toContain(job);
  });

  it('cancels a running print with CancelPrintJob: code 10, the job stays despite Delete=1', async () => {
    const job = await held('Cancel me');
    const run = await client.printJob(ALICE_CARD, { job });
    const jobId = await released('Cancel me');
    const agent = new AgentDriver(h, jobId);
    await agent.claim();
    await agent.event('printing', { pages_printed: 1, pages_total: 5 });
    await client.cancelPrintJob(ALICE_CARD, run.procId!);
    for await (const _event of run) {
      // drain the progress until the stream ends
    }
    const result = await run.result();
    expect(result).toMatchObject({ code: 10, errText: 'Druckauftrag abgebrochen', source: 'trailer' });
    expect(h.emulator.app.emulator.store.jobs.findById(jobId)!.state).toBe('cancelled');
    expect(await heldNames()).toContain(job);
    const again = await tpfm(h, 'CancelPrintJob', { ProcId: run.procId! }, alice);
    expect(again.code).toBe(9);
  });

  it('releases a held job once: parallel PrintJob calls get code 5 while the first runs', async () => {
    const job = await held('Only once');
    const url = new URL('/TPFM/', h.baseUrl);
    for (const [k, v] of Object.entries({ Cmd: 'PrintJob', Job: job, Delete: 0 }))
      url.searchParams.set(k, String(v));
    const headers = {
      'x-lang-id': 'en',
      'x-fmp-user-agent': 'parallel test',
      authorization: `Basic ${Buffer.from(`${ALICE_CARD}:${DEVICE_PASSWORD}`).toString('base64')}`,
    };
    const answers = await Promise.all(Array.from({ length: 6 }, () => request(url, { headers })));
    const started = answers.filter((a) => a.headers['x-fmp-procid'] !== undefined);
    const refused = answers.filter((a) => a.headers['x-fmp-return'] === '5');
    expect(started).toHaveLength(1);
    expect(refused).toHaveLength(5);
    expect(decodeErrText(refused[0]!.headers['x-fmp-errtext'] as string)).toBe(
      `Job file does not exist: job ${job.replace(/\.pdf$/, '')} is being printed by PrintJob ${started[0]!.headers['x-fmp-procid']}`,
    );
    for (const a of refused) await a.body.dump();
    const jobs = h.emulator.app.emulator.store.db
      .prepare("SELECT COUNT(*) AS n FROM jobs WHERE printer_id = ? AND file_name = 'Only once'")
      .get(h.demoPrinterId) as { n: number };
    expect(jobs.n).toBe(1);
    await tpfm(h, 'CancelPrintJob', { ProcId: Number(started[0]!.headers['x-fmp-procid']) }, alice);
    await started[0]!.body.dump();
  });

  it('validates PrintJob parameters: 4, 5, 6, 7, 8; CancelPrintJob: 9', async () => {
    const job = await held('Validation');
    const codeOf = async (params: Record<string, string | number>) =>
      (await tpfm(h, 'PrintJob', params, alice)).code;
    expect(await codeOf({ Job: job, Printer: 'Nowhere' })).toBe(4);
    expect(await codeOf({ Job: job, Printer: 'XPS Only' })).toBe(4);
    expect(await codeOf({ Job: job, Printer: 'Pull Printing' })).toBe(4);
    expect(await codeOf({ Job: 'missing.pdf' })).toBe(5);
    expect(await codeOf({ Job: job, Copies: 0 })).toBe(6);
    expect(await codeOf({ Job: job, Copies: 'two' })).toBe(6);
    expect(await codeOf({ Job: job, Delete: 2 })).toBe(7);
    expect(await codeOf({ Job: job, Progress: 'yes' })).toBe(8);
    expect((await tpfm(h, 'CancelPrintJob', { ProcId: 999_999 }, alice)).code).toBe(9);
    expect((await tpfm(h, 'CancelPrintJob', {}, alice)).code).toBe(9);
    expect(await heldNames()).toContain(job);
  });
});

describe('registration codes and pairing', () => {
  const CARD = 'DEADBEEF01';
  const codeFor = (card: string) =>
    h.emulator.app.emulator.store.db
      .prepare(
        'SELECT code, print_job_id FROM registration_codes WHERE card_number = ? ORDER BY created_at DESC',
      )
      .get(card) as { code: string; print_job_id: string };

  it('prints a code for an unknown card on GetCapabilities with Printer; the API claim links the card', async () => {
    expect((await tpfm(h, 'GetJobList', {}, { user: CARD })).status).toBe(401);
    const caps = await tpfm(h, 'GetCapabilities', { Printer: DEMO.printer.name }, { user: CARD });
    expect(caps.code).toBe(0);
    expect(caps.body).toContain('1=GetVersion');
    const { code, print_job_id } = codeFor(CARD);
    expect(code).toMatch(/^\d{6}$/);
    const printJob = h.emulator.app.emulator.store.jobs.findById(print_job_id)!;
    expect(printJob).toMatchObject({ printerId: h.demoPrinterId, state: 'pending', deleteAfterPrint: true });
    expect(printJob.file.contentType).toBe('application/pdf');
    const agent = new AgentDriver(h, print_job_id);
    await agent.claim();
    const doc = await fetch(`${h.baseUrl}/connector/v1/jobs/${print_job_id}/document`, {
      headers: { authorization: `Bearer ${h.adminToken}`, 'x-host-id': h.connectorId },
    });
    const text = Buffer.from(await doc.arrayBuffer()).toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text).toContain(`(${code})`);
    const noToken = await fetch(`${h.baseUrl}/v1/users/me/cards/claim/`, { method: 'POST' });
    expect(noToken.status).toBe(401);
    const claim = (c: string) =>
      fetch(`${h.baseUrl}/v1/users/me/cards/claim/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.aliceToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: c }),
      });
    expect((await claim('000000x')).status).toBe(404);
    const ok = await claim(code);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ card_linked: true });
    expect((await claim(code)).status).toBe(409);
    const list = await tpfm(h, 'GetJobList', {}, { user: CARD });
    expect(list.code).toBe(0);
  });

  it('links a card through the portal page (sign in and enter the code)', async () => {
    const card = 'CAFEF00D02';
    await tpfm(h, 'GetCapabilities', { Printer: h.demoPrinterId }, { user: card });
    const { code } = codeFor(card);
    const page = await fetch(`${h.baseUrl}/portal/cards/claim`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('name="code"');
    expect(html).toContain('<title>Register your card - PrintRelay</title>');
    const post = (form: Record<string, string>) =>
      fetch(`${h.baseUrl}/portal/cards/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const wrong = await post({ email: DEMO.user.email, password: 'bad', code });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('not correct');
    const done = await post({ email: DEMO.user.email, password: DEMO.user.password, code });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Card linked');
    expect((await tpfm(h, 'GetJobList', {}, { user: card })).code).toBe(0);
  });

  it('pairs a release station code as a printer’s pull-printing password (admin only)', async () => {
    const path = `/printing/v1/printers/${h.xpsPrinterId}/pull_printing_pairing/`;
    const post = (token: string | undefined, body: unknown) =>
      fetch(`${h.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    expect((await post(undefined, { code: 'station-1234' })).status).toBe(401);
    expect((await post(h.aliceToken, { code: 'station-1234' })).status).toBe(403);
    const bad = await post(h.adminToken, { code: 7 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'code' });
    expect((await tpfm(h, 'GetJobList', {}, { user: ALICE_CARD, password: 'station-1234' })).status).toBe(
      401,
    );
    const ok = await post(h.adminToken, { code: 'station-1234' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ printer_id: h.xpsPrinterId, pull_printing: true });
    const list = await tpfm(h, 'GetJobList', {}, { user: ALICE_CARD, password: 'station-1234' });
    expect(list.code).toBe(0);
    expect(parseJobListBody(list.body)).toEqual([]);
  });
});

describe('code 1: server-side failures', () => {
  it('answers code 1 with X-FMP-OSError and X-FMP-OSErrText for each command that lists it', async () => {
    const job = await held('Before the fault');
    const run = await client.printJob(ALICE_CARD, { job });
    const db = h.emulator.app.emulator.store.db;
    db.exec('DROP TABLE local_jobs');
    for (const cmd of ['CreateLocalJob', 'UpdateLocalJob']) {
      const params = {
        Printer: DEMO.printer.name,
        Type: 'Copy',
        JobId: 'ffffffff-0000-0000-0000-000000000000',
      };
      const res = await tpfm(
        h,
        cmd,
        cmd === 'CreateLocalJob' ? { Printer: params.Printer, Type: 'Copy' } : { JobId: params.JobId },
        alice,
      );
      expect(res.code, cmd).toBe(1);
      expect(res.headers['x-fmp-oserror']).toBe('1359');
      expect(decodeErrText(res.headers['x-fmp-oserrtext'] as string)).toContain('local_jobs');
    }
    db.exec('DROP TABLE job_events; DROP TABLE jobs');
    const cancel = await tpfm(h, 'CancelPrintJob', { ProcId: run.procId! }, alice);
    expect(cancel.code).toBe(1);
    db.exec('DROP TABLE held_jobs');
    for (const [cmd, params] of [
      ['GetJobList', {}],
      ['DeleteJob', { Job: job }],
      ['SetJobProperties', { Job: job, PutOnHold: 1 }],
    ] as const) {
      const res = await tpfm(h, cmd, params, { ...alice, lang: 'de' });
      expect(res.code, cmd).toBe(1);
      expect(res.errText).toBe('Betriebssystemfehler auf dem Server');
      expect(decodeErrText(res.headers['x-fmp-oserrtext'] as string)).toContain('held_jobs');
    }
    db.exec('DROP TABLE schema_migrations');
    const version = await tpfm(h, 'GetVersion');
    expect(version.code).toBe(1);
    expect(version.headers['x-fmp-oserror']).toBe('1359');
    const shutdown = run.result();
    await h.close();
    closed = true;
    expect(await shutdown).toMatchObject({ code: 1, osErrText: 'the server is shutting down' });
  });
});
