import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseCapabilitiesBody,
  parseJobListBody,
  parseUploadBody,
  parseVersionBody,
} from '../../src/protocol/tpfm-bodies.js';
import { MIGRATIONS } from '../../src/emulator/store/migrations.js';
import { TPFM_COMMANDS } from '../../src/protocol/tpfm-codes.js';
import { call, passwordToken, startHarness } from './emulator-harness.js';
import {
  ALICE_CARD,
  BOB,
  DEMO,
  FUTURE,
  holdJob,
  startTpfmHarness,
  type TpfmHarness,
  tpfm,
} from './emulator-tpfm-harness.js';

let h: TpfmHarness;
const alice = { user: ALICE_CARD };

beforeAll(async () => {
  h = await startTpfmHarness();
});
afterAll(async () => {
  await h.close();
});

describe('/TPFM/ basics', () => {
  it('shows the Pull Printing queue in GetPrinter and holds jobs printed to it', async () => {
    const list = await call(h.baseUrl, 'GET', '/sfapi/GetPrinter', h.aliceToken);
    expect(list.body.map((p: { name: string }) => p.name)).toContain('Pull Printing');
    const jobId = await holdJob(h, 'Held: one');
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(h.emulator.app.emulator.store.jobs.findById(jobId)).toBeUndefined();
    const status = await call(h.baseUrl, 'GET', `/sfapi/Status?id=${jobId}`, h.aliceToken);
    expect(status.body).toMatchObject({ jobstatus: 1246, jobstatusstring: 'HELD|' });
  });

  it('answers GetVersion without auth, with X-FMP-Return 0', async () => {
    const res = await tpfm(h, 'GetVersion');
    expect(res.status).toBe(200);
    expect(res.code).toBe(0);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const schema = String(Math.max(...MIGRATIONS.map((m) => m.version)));
    expect(parseVersionBody(res.body)).toEqual({
      'printrelay-emulator': '1.0.0',
      'tpfm-protocol': '1.0.0',
      'emulator-schema': schema,
    });
  });

  it('matches Cmd and parameter names case-insensitively and answers code 2 for unknown commands', async () => {
    expect((await tpfm(h, 'getversion')).code).toBe(0);
    const en = await tpfm(h, 'FormatDisk');
    expect(en.code).toBe(2);
    expect(en.errText).toMatch(/^Command not supported: Cmd "FormatDisk"/);
    const de = await tpfm(h, 'FormatDisk', {}, { lang: 'de' });
    expect(de.errText).toMatch(/^Befehl wird nicht unterstützt/);
  });

  it('requires X-Lang-ID and X-FMP-User-Agent (code 11 naming the header)', async () => {
    const noLang = await tpfm(h, 'GetVersion', {}, { lang: null });
    expect(noLang.code).toBe(11);
    expect(noLang.errText).toContain('X-Lang-ID');
    const noAgent = await tpfm(h, 'GetVersion', {}, { agent: null });
    expect(noAgent.code).toBe(11);
    expect(noAgent.errText).toContain('X-FMP-User-Agent');
  });

  it('gives guest capabilities without auth and the full list to a known user', async () => {
    const guest = parseCapabilitiesBody((await tpfm(h, 'GetCapabilities')).body);
    expect(guest).toEqual({ commands: ['GetVersion', 'GetCapabilities'], systemType: 'Cloud' });
    const user = parseCapabilitiesBody((await tpfm(h, 'GetCapabilities', {}, alice)).body);
    expect(user.commands).toEqual(Object.keys(TPFM_COMMANDS));
    expect(user.systemType).toBe('Cloud');
  });

  it('challenges with 401 Basic when auth is missing or wrong', async () => {
    for (const options of [
      {},
      { user: ALICE_CARD, password: 'wrong-password' },
      { user: 'UNKNOWNCARD' },
      { authorization: 'Bearer abc' },
    ]) {
      const res = await tpfm(h, 'GetJobList', {}, options);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    }
    const wrongPassword = await tpfm(h, 'GetCapabilities', {}, { user: ALICE_CARD, password: 'nope-nope' });
    expect(wrongPassword.status).toBe(401);
  });

  it('answers code 3 to every user command of a user without pull printing', async () => {
    for (const cmd of Object.keys(TPFM_COMMANDS).filter(
      (c) => TPFM_COMMANDS[c as keyof typeof TPFM_COMMANDS].auth === 'user',
    )) {
      const res = await tpfm(h, cmd, { Job: 'x', ProcId: 1 }, { user: BOB.card });
      expect(res.code, cmd).toBe(3);
      expect(res.errText).toContain('not enabled');
    }
  });
});

describe('GetJobList, DeleteJob, SetJobProperties', () => {
  let handle: string;

  beforeAll(async () => {
    await holdJob(h, 'List: two');
    const list = parseJobListBody((await tpfm(h, 'GetJobList', {}, alice)).body);
    handle = list.find((j) => j.displayName === 'List: two'.replace(':', ' '))!.fileName;
  });

  it('lists held jobs as spec lines with X-FMP-Visible 1 for a known printer', async () => {
    const res = await tpfm(h, 'GetJobList', { Printer: DEMO.printer.name }, alice);
    expect(res.code).toBe(0);
    expect(res.headers['x-fmp-visible']).toBe('1');
    const jobs = parseJobListBody(res.body);
    const job = jobs.find((j) => j.fileName === handle)!;
    expect(job.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.fileName).toBe(`${job.jobId}.pdf`);
    expect(job).toMatchObject({
      displayName: 'List  two',
      driverName: 'PrintRelay Cloud Print',
      attributes: 0,
    });
    expect(job.size).toBeGreaterThan(0);
    expect(job.created).toBe(Math.floor(h.clock.now() / 1000));
    expect(res.body.startsWith('[Jobs]\r\n')).toBe(true);
  });

  it('filters by the printer format, limits with MaxEntries, and rejects unknown printers (code 4)', async () => {
    const xps = await tpfm(h, 'GetJobList', { Printer: 'XPS Only' }, alice);
    expect(parseJobListBody(xps.body)).toEqual([]);
    const byId = await tpfm(h, 'GetJobList', { Printer: h.demoPrinterId }, alice);
    expect(parseJobListBody(byId.body).length).toBeGreaterThanOrEqual(2);
    const one = await tpfm(h, 'GetJobList', { MaxEntries: 1 }, alice);
    expect(parseJobListBody(one.body)).toHaveLength(1);
    const unknown = await tpfm(h, 'GetJobList', { Printer: 'No Such Printer' }, alice);
    expect(unknown.code).toBe(4);
    expect(unknown.errText).toContain('No Such Printer');
    expect((await tpfm(h, 'GetJobList', { MaxEntries: 'many' }, alice)).code).toBe(11);
  });

  it('sends X-FMP-Visible 0 when the device printer is not registered and no Printer is given', async () => {
    const res = await tpfm(h, 'GetJobList', {}, { user: ALICE_CARD, password: FUTURE.password });
    expect(res.code).toBe(0);
    expect(res.headers['x-fmp-visible']).toBe('0');
  });

  it('puts jobs on hold and shows them only with ShowPutOnHoldJobs=1; sets ModifiedDate', async () => {
    const set = await tpfm(
      h,
      'SetJobProperties',
      { Job: handle, PutOnHold: 1, ModifiedDate: 1_700_000_000 },
      alice,
    );
    expect(set.code).toBe(0);
    const hidden = parseJobListBody((await tpfm(h, 'GetJobList', {}, alice)).body);
    expect(hidden.map((j) => j.fileName)).not.toContain(handle);
    const shown = parseJobListBody((await tpfm(h, 'GetJobList', { ShowPutOnHoldJobs: 1 }, alice)).body);
    expect(shown.find((j) => j.fileName === handle)).toMatchObject({
      attributes: 1,
      modified: 1_700_000_000,
    });
    expect((await tpfm(h, 'SetJobProperties', { Job: handle, PutOnHold: 0 }, alice)).code).toBe(0);
    expect(parseJobListBody((await tpfm(h, 'GetJobList', {}, alice)).body).map((j) => j.fileName)).toContain(
      handle,
    );
  });

  it('answers code 5 for unknown jobs and 11 for a bad PutOnHold', async () => {
    expect((await tpfm(h, 'SetJobProperties', { Job: 'nope.pdf', PutOnHold: 1 }, alice)).code).toBe(5);
    expect((await tpfm(h, 'SetJobProperties', { Job: handle, PutOnHold: 7 }, alice)).code).toBe(11);
    expect((await tpfm(h, 'DeleteJob', { Job: 'nope.pdf' }, alice)).code).toBe(5);
    expect((await tpfm(h, 'DeleteJob', {}, alice)).code).toBe(5);
  });

  it('deletes a held job and its document', async () => {
    const id = await holdJob(h, 'Delete me');
    const held = h.emulator.app.emulator.store.db
      .prepare('SELECT file_path FROM held_jobs WHERE id = ?')
      .get(id) as {
      file_path: string;
    };
    await readFile(held.file_path);
    const res = await tpfm(h, 'DeleteJob', { Job: `${id}.pdf` }, alice);
    expect(res.code).toBe(0);
    await expect(readFile(held.file_path)).rejects.toMatchObject({ code: 'ENOENT' });
    const list = parseJobListBody((await tpfm(h, 'GetJobList', {}, alice)).body);
    expect(list.map((j) => j.jobId)).not.toContain(id);
  });
});

describe('CreateLocalJob and UpdateLocalJob', () => {
  const create = (params: Record<string, string | number>) =>
    tpfm(h, 'CreateLocalJob', { Printer: DEMO.printer.name, Type: 'Copy', ...params }, alice);
  const update = (params: Record<string, string | number>) => tpfm(h, 'UpdateLocalJob', params, alice);
  const stored = (id: string) =>
    h.emulator.app.emulator.store.db.prepare('SELECT * FROM local_jobs WHERE id = ?').get(id) as Record<
      string,
      unknown
    >;

  it('creates a Pending job, applies changed parameters, then ignores updates after Succeeded (13)', async () => {
    const res = await create({ Copies: 2, Color: 1, PaperId: 9, Filename: 'scan.pdf' });
    expect(res.code).toBe(0);
    const id = res.headers['x-fmp-jobid'] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored(id)).toMatchObject({ state: 'Pending', type: 'Copy' });
    expect((await update({ JobId: id, PrintedPages: 3, TotalPrintedPages: 6 })).code).toBe(0);
    expect(JSON.parse(stored(id).fields_json as string)).toMatchObject({
      Copies: 2,
      PrintedPages: 3,
      TotalPrintedPages: 6,
    });
    expect((await update({ JobId: id, Status: 'Succeeded' })).code).toBe(0);
    expect(stored(id).state).toBe('Succeeded');
    const later = await update({ JobId: id, Copies: 9 });
    expect(later.code).toBe(13);
    expect(JSON.parse(stored(id).fields_json as string).Copies).toBe(2);
  });

  it('records single-request Failed jobs as final', async () => {
    const res = await create({ Status: 'Failed' });
    const id = res.headers['x-fmp-jobid'] as string;
    expect(stored(id).state).toBe('Failed');
    expect((await update({ JobId: id, Status: 'Succeeded' })).code).toBe(13);
  });

  it('closes a Pending job after 24 hours without update (injected clock)', async () => {
    const id = (await create({})).headers['x-fmp-jobid'] as string;
    h.clock.advance(23 * 3600_000);
    expect((await update({ JobId: id, PrintedSheets: 1 })).code).toBe(0);
    h.clock.advance(24 * 3600_000 - 1);
    expect((await update({ JobId: id, PrintedSheets: 2 })).code).toBe(0);
    h.clock.advance(24 * 3600_000);
    const closed = await update({ JobId: id, Status: 'Succeeded' });
    expect(closed.code).toBe(13);
    expect(closed.errText).toContain('24 hours');
    expect(stored(id).state).toBe('closed');
  });

  it('refuses the pull-printing queue as the copier of a local job with code 4', async () => {
    const queue = await create({ Printer: 'Pull Printing' });
    expect(queue.code).toBe(4);
    expect(queue.errText).toContain('Printer must be a physical printer, not the pull-printing queue');
  });

  it('validates the parameter table (12), the printer (4) and unknown ids (13)', async () => {
    const missing = await tpfm(h, 'CreateLocalJob', { Printer: DEMO.printer.name }, alice);
    expect(missing.code).toBe(12);
    expect(missing.errText).toContain('Type');
    const bad = await create({ PageCoverage: 101, Color: 2, PrintedPages: 1, PrintedColorPages: 2 });
    expect(bad.code).toBe(12);
    expect(bad.errText).toContain('PageCoverage');
    expect(bad.errText).toContain('Color');
    expect(bad.errText).toContain('PrintedColorPages');
    expect((await create({ Type: 'Scan' })).code).toBe(12);
    expect((await tpfm(h, 'CreateLocalJob', { Printer: 'Nowhere', Type: 'Copy' }, alice)).code).toBe(4);
    expect((await update({ JobId: 'ffffffff-0000-0000-0000-000000000000' })).code).toBe(13);
    expect((await update({})).code).toBe(12);
    const de = await tpfm(h, 'UpdateLocalJob', {}, { ...alice, lang: 'de' });
    expect(de.errText).toMatch(/^Ungültiger Parameter des lokalen Auftrags/);
  });
});

describe('PrepareUpload', () => {
  it('hands out a signed storage URL and headers that accept the document', async () => {
    const res = await tpfm(h, 'PrepareUpload', { DocumentName: 'Scan 1', FileExtension: 'pdf' }, alice);
    expect(res.code).toBe(0);
    const upload = parseUploadBody(res.body);
    expect(upload.uri).toMatch(new RegExp(`^${h.baseUrl}/storage/uploads/[0-9a-f-]{36}\\?.*sig=`));
    expect(upload.httpHeaders).toEqual({ 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' });
    const put = await request(upload.uri, {
      method: 'PUT',
      headers: upload.httpHeaders,
      body: Buffer.from('%PDF-1.4'),
    });
    await put.body.dump();
    expect(put.statusCode).toBe(201);
  });

  it('answers code 11 for missing or bad parameters', async () => {
    expect((await tpfm(h, 'PrepareUpload', { FileExtension: 'pdf' }, alice)).code).toBe(11);
    expect(
      (await tpfm(h, 'PrepareUpload', { DocumentName: 'x'.repeat(256), FileExtension: 'pdf' }, alice)).code,
    ).toBe(11);
    expect((await tpfm(h, 'PrepareUpload', { DocumentName: 'a', FileExtension: '.pdf' }, alice)).code).toBe(
      11,
    );
    expect(
      (await tpfm(h, 'PrepareUpload', { DocumentName: 'a', FileExtension: 'jpg', PageNumber: 0 }, alice))
        .code,
    ).toBe(11);
  });
});

describe('restarts', () => {
  it('keeps one Pull Printing queue per organization across restarts of a file database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tpfm-restart-'));
    const names = async () => {
      const run = await startHarness({ db: join(dir, 'emulator.db'), dataDir: dir });
      try {
        const token = await passwordToken(run.baseUrl, 'printing', DEMO.user);
        const list = await call(run.baseUrl, 'GET', '/sfapi/GetPrinter', token);
        return list.body.map((p: { id: string; name: string }) => `${p.name}:${p.id}`);
      } finally {
        await run.close();
      }
    };
    try {
      const first = await names();
      expect(first.filter((n: string) => n.startsWith('Pull Printing:'))).toHaveLength(1);
      expect(await names()).toEqual(first);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
