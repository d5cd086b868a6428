/**
 * The /TPFM/ commands other than PrintJob, called directly on the emulator's pull-printing
 * services (an in-memory emulator with the demo seed, a connector and two printers; no HTTP):
 * each command's parameters and their rules, its X-FMP-Return codes with the detail naming the
 * parameter, its body and its extra headers. The wire (headers, 401, query names) is pinned by
 * tpfm-wire.test.ts and the integration tests.
 */
import { mkdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, defaultEmulatorSeed } from '../../../../../src/config/demo-seed.js';
import type { User } from '../../../../../src/emulator/accounts/user-repo.js';
import { createEmulator, type Emulator } from '../../../../../src/emulator/app.js';
import type { EmulatorContext } from '../../../../../src/emulator/context.js';
import type { PrinterRecord } from '../../../../../src/emulator/printers/printer-repo.js';
import type { TpfmServices } from '../../../../../src/emulator/pull/pull-services.js';
import { RegistrationCodeRepo } from '../../../../../src/emulator/pull/cards/registration-code-repo.js';
import type { TpfmDevice } from '../../../../../src/emulator/pull/tpfm/tpfm-auth.js';
import {
  cancelPrintJob,
  createLocalJob,
  deleteJob,
  getCapabilities,
  getJobList,
  getVersion,
  heldJob,
  namedPrinter,
  prepareUpload,
  setJobProperties,
  TPFM_SERVER_VERSION,
  type TpfmCall,
  updateLocalJob,
} from '../../../../../src/emulator/pull/tpfm/tpfm-commands.js';
import { TpfmFailure } from '../../../../../src/emulator/pull/tpfm/tpfm-wire.js';
import { MIGRATIONS } from '../../../../../src/emulator/store/migrations.js';
import { ManualClock } from '../../../../../src/lib/clock.js';
import { silentLogger } from '../../../../../src/log/logger.js';
import {
  parseCapabilitiesBody,
  parseJobListBody,
  parseUploadBody,
  parseVersionBody,
} from '../../../../../src/protocol/tpfm-bodies.js';
import { TPFM_COMMANDS } from '../../../../../src/protocol/tpfm-codes.js';
import { TPFM_ATTR_ON_HOLD } from '../../../../../src/protocol/tpfm-job-list.js';
import { pdfFileRecord } from '../../../../support/pdf-file-record.js';

const BASE = 'https://print.test';
const FUTURE = { name: 'Future Printer', password: 'future-device' };
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

let dir: string;
let emulator: Emulator;
let ctx: EmulatorContext;
let s: TpfmServices;
let clock: ManualClock;
let alice: User;
let admin: User;
let demoPrinter: PrinterRecord;
let xpsPrinter: PrinterRecord;
let connectorId: string;
let device: TpfmDevice;
let held = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tpfm-commands-'));
  clock = new ManualClock(Date.UTC(2026, 2, 1, 10));
  const seed = defaultEmulatorSeed();
  seed.organizations[0]!.printers.push({ name: FUTURE.name, pull_printing_password: FUTURE.password });
  emulator = await createEmulator({
    db: ':memory:',
    dataDir: join(dir, 'emulator'),
    seed,
    logger: silentLogger(),
    clock,
  });
  ctx = emulator.app.emulator;
  s = ctx.pull;
  alice = ctx.store.users.findByEmail(DEMO.user.email)!;
  admin = ctx.store.users.findByEmail(DEMO.admin.email)!;
  const auth = {
    kind: 'user' as const,
    userId: admin.id,
    organizationId: admin.organizationId,
    clientId: DEMO.client.id,
    scopes: ['printing', 'printing.connectors'],
    roles: ['admin' as const, 'user' as const],
  };
  const { connector } = ctx.connectors.register(auth, {
    serial_string: 'tpfm-commands-test',
    type: 'TPHub',
    readable_name: 'TPFM commands test',
    hostname: 'host-1',
    internal_ip: '10.0.0.5',
    external_ip: null,
    os_type: 'Linux',
    sw_version: '0.1.0',
    supported_formats: 'PDF,XPS',
  });
  connectorId = connector.id;
  const org = admin.organizationId;
  demoPrinter = ctx.printers.create(org, connectorId, {
    name: DEMO.printer.name,
    status: 'Online',
    supported_formats: ['PDF'],
  });
  xpsPrinter = ctx.printers.create(org, connectorId, {
    name: 'XPS Only',
    status: 'Online',
    supported_formats: ['XPS'],
  });
  device = { organizationId: org, printerName: DEMO.printer.name, printer: demoPrinter };
});

afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Empties alice's queue, so every test starts from no held job. */
beforeEach(async () => {
  for (const job of s.queue.list(alice.id, { showOnHold: true })) {
    await s.queue.remove(s.queue.find(alice.id, job.fileName)!);
  }
});

/** Holds a PDF in `user`'s queue as `name`; returns the held job's id. */
function hold(name: string, user: User = alice): string {
  held += 1;
  clock.advance(1000);
  const path = join(dir, `held-${held}.pdf`);
  writeFileSync(path, PDF, { mode: 0o600 });
  const queue = s.queue.ensureQueue(user.organizationId);
  return ctx.jobs.create({
    organizationId: user.organizationId,
    userId: user.id,
    printerId: queue.printerId,
    file: pdfFileRecord(path, PDF, name),
    ticket: { copies: 1 },
    deleteAfterPrint: false,
  }).jobId;
}

function call(
  command: TpfmCall['command'],
  query: Record<string, string> = {},
  over: Partial<TpfmCall> = {},
): TpfmCall {
  return {
    command,
    query,
    langId: 'en',
    baseUrl: BASE,
    device,
    userName: DEMO.user.card,
    user: alice,
    ...over,
  };
}

/** The TpfmFailure `run` throws (fails the test when it throws none or another error). */
async function failure(run: () => unknown): Promise<{ code: number; detail: string | undefined }> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof TpfmFailure)) throw error;
    return { code: error.returnCode, detail: error.detail };
  }
  throw new Error('the command succeeded');
}

function names(body: string): string[] {
  return parseJobListBody(body).map((j) => j.displayName);
}

describe('GetVersion', () => {
  it('reports the emulator, the protocol and the database schema versions', () => {
    const latest = Math.max(...MIGRATIONS.map((m) => m.version));
    expect(parseVersionBody(getVersion(s).body)).toEqual({
      'printrelay-emulator': TPFM_SERVER_VERSION,
      'tpfm-protocol': TPFM_SERVER_VERSION,
      'emulator-schema': String(latest),
    });
    expect(TPFM_SERVER_VERSION).toBe('1.0.0');
  });
});

describe('GetCapabilities', () => {
  const codeFor = (card: string) =>
    new RegistrationCodeRepo(ctx.store.db).openForCard(admin.organizationId, card, clock.now());
  const offers = (printerId?: string) =>
    ctx.jobs.pendingOffers(connectorId).fresh.filter((o) => !printerId || o.printer_id === printerId).length;

  it('lists every command for a known user, and the guest commands otherwise', async () => {
    const known = parseCapabilitiesBody((await getCapabilities(s, call('GetCapabilities'))).body);
    expect(known).toEqual({ commands: Object.keys(TPFM_COMMANDS), systemType: 'Cloud' });
    const guest = call('GetCapabilities', {}, { user: undefined, userName: undefined, device: undefined });
    expect(parseCapabilitiesBody((await getCapabilities(s, guest)).body)).toEqual({
      commands: ['GetVersion', 'GetCapabilities'],
      systemType: 'Cloud',
    });
  });

  it('prints a registration sheet on the named printer for an unknown card at a device', async () => {
    const before = offers(demoPrinter.id);
    const unknown = { user: undefined, userName: 'CAFE0001' };
    const answer = await getCapabilities(
      s,
      call('GetCapabilities', { Printer: ` ${DEMO.printer.name} ` }, unknown),
    );
    expect(parseCapabilitiesBody(answer.body).commands).toEqual(['GetVersion', 'GetCapabilities']);
    expect(offers(demoPrinter.id)).toBe(before + 1);
    const code = codeFor('CAFE0001');
    expect(code).toMatchObject({ cardNumber: 'CAFE0001', printerId: demoPrinter.id });
    // The sheet tells where to claim the card: the claim page of the emulator's origin.
    const sheet = ctx.jobs.find(admin.organizationId, code?.printJobId ?? '');
    expect(readFileSync(sheet!.file.path, 'latin1')).toContain(`(${BASE}/portal/cards/claim) Tj`);
  });

  it.each([
    ['a known user', { Printer: DEMO.printer.name }, {}],
    ['no Printer', {}, { user: undefined, userName: 'CAFE0002' }],
    ['a blank Printer', { Printer: '  ' }, { user: undefined, userName: 'CAFE0003' }],
    ['an unknown Printer', { Printer: 'Nowhere' }, { user: undefined, userName: 'CAFE0004' }],
    [
      'no device',
      { Printer: DEMO.printer.name },
      { user: undefined, userName: 'CAFE0005', device: undefined },
    ],
    ['no user name', { Printer: DEMO.printer.name }, { user: undefined, userName: undefined }],
  ] as const)('prints no registration sheet for %s', async (_, query, over) => {
    const before = offers();
    await getCapabilities(s, call('GetCapabilities', { ...query }, { ...over }));
    expect(offers()).toBe(before);
    expect(codeFor(DEMO.user.card)).toBeUndefined();
    if ('userName' in over && over.userName) expect(codeFor(over.userName)).toBeUndefined();
  });

  it('prints no registration sheet on the pull-printing queue', async () => {
    const queue = s.queue.ensureQueue(admin.organizationId);
    const before = offers();
    const unknown = { user: undefined, userName: 'CAFE0006' };
    await getCapabilities(s, call('GetCapabilities', { Printer: queue.printerId }, unknown));
    expect(offers()).toBe(before);
    expect(codeFor('CAFE0006')).toBeUndefined();
  });
});

describe('the Printer parameter', () => {
  it('names a printer of the organization by name (blanks and case aside) or id', () => {
    expect(namedPrinter(s, call('GetJobList', { Printer: ' xps only ' }))?.id).toBe(xpsPrinter.id);
    expect(namedPrinter(s, call('GetJobList', { Printer: xpsPrinter.id }))?.id).toBe(xpsPrinter.id);
    expect(namedPrinter(s, call('GetJobList'))).toBeUndefined();
    expect(namedPrinter(s, call('GetJobList', { Printer: ' ' }))).toBeUndefined();
  });

  it('answers code 4 naming an unknown printer', async () => {
    expect(await failure(() => namedPrinter(s, call('GetJobList', { Printer: ' Nowhere ' })))).toEqual({
      code: 4,
      detail: 'Printer "Nowhere" is not a printer of this organization',
    });
  });
});

describe('GetJobList', () => {
  it("lists the user's jobs that the device's printer can print, marked visible", () => {
    hold('First');
    hold('Second');
    const answer = getJobList(s, call('GetJobList'));
    expect(names(answer.body)).toEqual(['First', 'Second']);
    expect(answer.headers).toEqual({ 'X-FMP-Visible': '1' });
  });

  it('filters for the named printer, and lists all without a printer (visible 0)', () => {
    hold('Report');
    const xps = getJobList(s, call('GetJobList', { Printer: 'XPS Only' }));
    expect(names(xps.body)).toEqual([]);
    expect(xps.headers).toEqual({ 'X-FMP-Visible': '1' });
    const future = { organizationId: admin.organizationId, printerName: FUTURE.name, printer: undefined };
    const all = getJobList(s, call('GetJobList', {}, { device: future }));
    expect(names(all.body)).toEqual(['Report']);
    expect(all.headers).toEqual({ 'X-FMP-Visible': '0' });
  });

  it('keeps at most MaxEntries jobs', () => {
    hold('One');
    hold('Two');
    expect(names(getJobList(s, call('GetJobList', { MaxEntries: '1' })).body)).toEqual(['One']);
    expect(names(getJobList(s, call('GetJobList', { MaxEntries: '0' })).body)).toEqual([]);
    expect(names(getJobList(s, call('GetJobList', { MaxEntries: '100000' })).body)).toEqual(['One', 'Two']);
    expect(names(getJobList(s, call('GetJobList', { MaxEntries: '' })).body)).toEqual(['One', 'Two']);
  });

  it.each(['-1', '100001', 'x', '1.5'])('answers code 11 for MaxEntries %j', async (value) => {
    expect(await failure(() => getJobList(s, call('GetJobList', { MaxEntries: value })))).toEqual({
      code: 11,
      detail: 'MaxEntries must be an integer from 0 to 100000',
    });
  });

  it('hides jobs put on hold unless ShowPutOnHoldJobs is 1', async () => {
    hold('Kept');
    const onHold = hold('Parked');
    setJobProperties(s, call('SetJobProperties', { Job: onHold, PutOnHold: '1' }));
    expect(names(getJobList(s, call('GetJobList')).body)).toEqual(['Kept']);
    expect(names(getJobList(s, call('GetJobList', { ShowPutOnHoldJobs: '0' })).body)).toEqual(['Kept']);
    expect(names(getJobList(s, call('GetJobList', { ShowPutOnHoldJobs: '1' })).body)).toEqual([
      'Kept',
      'Parked',
    ]);
    expect(await failure(() => getJobList(s, call('GetJobList', { ShowPutOnHoldJobs: '2' })))).toEqual({
      code: 11,
      detail: 'ShowPutOnHoldJobs must be 0 or 1',
    });
  });

  it('needs an authenticated user', () => {
    expect(() => getJobList(s, call('GetJobList', {}, { user: undefined }))).toThrow(
      'command needs an authenticated user',
    );
    expect(() => getJobList(s, call('GetJobList', {}, { device: undefined }))).toThrow(
      'command needs an authenticated user',
    );
  });
});

describe('DeleteJob and the Job parameter', () => {
  it('removes the held job named by file name or id, and its document', async () => {
    const first = hold('First');
    hold('Second');
    const job = heldJob(s, call('DeleteJob', { Job: ` ${first} ` }));
    expect(job.id).toBe(first);
    expect(heldJob(s, call('DeleteJob', { Job: job.fileName })).id).toBe(first);
    expect(await deleteJob(s, call('DeleteJob', { Job: job.fileName }))).toEqual({ body: '' });
    expect(names(getJobList(s, call('GetJobList')).body)).toEqual(['Second']);
    expect(s.queue.find(alice.id, first)).toBeUndefined();
  });

  it('removes a held job whose document is gone already; an OS error keeps the job and is thrown', async () => {
    const gone = s.queue.find(alice.id, hold('Gone'))!;
    unlinkSync(gone.file.path);
    await s.queue.remove(gone);
    expect(s.queue.find(alice.id, gone.id)).toBeUndefined();
    const stuck = s.queue.find(alice.id, hold('Stuck'))!;
    unlinkSync(stuck.file.path);
    mkdirSync(stuck.file.path);
    try {
      await expect(s.queue.remove(stuck)).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
      expect(s.queue.find(alice.id, stuck.id)?.id).toBe(stuck.id);
    } finally {
      rmdirSync(stuck.file.path);
      writeFileSync(stuck.file.path, PDF);
    }
  });

  it.each<Record<string, string>>([{}, { Job: '  ' }])('answers code 5 without a Job (%j)', async (query) => {
    expect(await failure(() => deleteJob(s, call('DeleteJob', query)))).toEqual({
      code: 5,
      detail: 'Job is required (the job file name)',
    });
  });

  it("answers code 5 for a job not in the user's queue", async () => {
    const bobs = ctx.store.users.findByEmail(DEMO.admin.email)!;
    const other = hold('Not yours', bobs);
    expect(await failure(() => deleteJob(s, call('DeleteJob', { Job: other })))).toEqual({
      code: 5,
      detail: `Job "${other}" is not in your queue`,
    });
    expect(s.queue.find(bobs.id, other)).toBeDefined();
  });
});

describe('SetJobProperties', () => {
  const listed = () =>
    parseJobListBody(getJobList(s, call('GetJobList', { ShowPutOnHoldJobs: '1' })).body)[0]!;

  it('puts a job on hold and back, and sets its modified time', () => {
    const job = hold('Report');
    const created = listed().modified;
    expect(setJobProperties(s, call('SetJobProperties', { Job: job, PutOnHold: '1' }))).toEqual({ body: '' });
    expect(listed().attributes & TPFM_ATTR_ON_HOLD).toBe(TPFM_ATTR_ON_HOLD);
    expect(listed().modified).toBe(created);
    setJobProperties(s, call('SetJobProperties', { Job: job, PutOnHold: '0' }));
    expect(listed().attributes & TPFM_ATTR_ON_HOLD).toBe(0);
    setJobProperties(s, call('SetJobProperties', { Job: job, ModifiedDate: '253402300799' }));
    expect(listed()).toMatchObject({ modified: 253_402_300_799, attributes: 0 });
    setJobProperties(s, call('SetJobProperties', { Job: job, ModifiedDate: '0', PutOnHold: '1' }));
    expect(listed()).toMatchObject({ modified: 0, attributes: TPFM_ATTR_ON_HOLD });
    setJobProperties(s, call('SetJobProperties', { Job: job }));
    expect(listed()).toMatchObject({ modified: 0, attributes: TPFM_ATTR_ON_HOLD });
  });

  it.each([
    [{ PutOnHold: '2' }, 'PutOnHold must be an integer from 0 to 1'],
    [{ PutOnHold: '-1' }, 'PutOnHold must be an integer from 0 to 1'],
    [{ ModifiedDate: '-1' }, 'ModifiedDate must be an integer from 0 to 253402300799'],
    [{ ModifiedDate: '253402300800' }, 'ModifiedDate must be an integer from 0 to 253402300799'],
  ])('answers code 11 for %j', async (query, detail) => {
    const job = hold('Report');
    expect(
      await failure(() => setJobProperties(s, call('SetJobProperties', { Job: job, ...query }))),
    ).toEqual({
      code: 11,
      detail,
    });
  });

  it('answers code 5 for an unknown job', async () => {
    expect(
      await failure(() => setJobProperties(s, call('SetJobProperties', { Job: 'nothing.pdf' }))),
    ).toEqual({
      code: 5,
      detail: 'Job "nothing.pdf" is not in your queue',
    });
  });
});

describe('CancelPrintJob', () => {
  function release(user: User = alice) {
    const job = s.queue.find(user.id, hold('Release', user))!;
    return s.prints.start({
      held: job,
      user,
      printer: demoPrinter,
      copies: undefined,
      deleteOnSuccess: false,
    });
  }

  it("cancels the user's running release", () => {
    const proc = release();
    expect(cancelPrintJob(s, call('CancelPrintJob', { ProcId: ` ${proc.procId} ` }))).toEqual({ body: '' });
    expect(ctx.jobs.find(alice.organizationId, proc.jobId)?.state).toBe('cancelled');
  });

  it('answers code 9 without a ProcId, or for one out of range', async () => {
    for (const value of [undefined, '', '0', '-3', 'x', '9007199254740992']) {
      const query: Record<string, string> = value === undefined ? {} : { ProcId: value };
      const detail =
        value === undefined || value === ''
          ? 'ProcId is required'
          : 'ProcId must be an integer from 1 to 9007199254740991';
      expect(await failure(() => cancelPrintJob(s, call('CancelPrintJob', query)))).toEqual({
        code: 9,
        detail,
      });
    }
  });

  it("answers code 9 for another user's release, and for a process that does not run", async () => {
    const other = release(admin);
    expect(
      await failure(() => cancelPrintJob(s, call('CancelPrintJob', { ProcId: String(other.procId) }))),
    ).toEqual({
      code: 9,
      detail: `ProcId ${other.procId} is not a running print of yours`,
    });
    expect(ctx.jobs.find(admin.organizationId, other.jobId)?.state).not.toBe('cancelled');
    expect(await failure(() => cancelPrintJob(s, call('CancelPrintJob', { ProcId: '9999' })))).toEqual({
      code: 9,
      detail: 'ProcId 9999 is not a running print of yours',
    });
  });
});

describe('CreateLocalJob and UpdateLocalJob', () => {
  const create = (query: Record<string, string>, over: Partial<TpfmCall> = {}) =>
    createLocalJob(s, call('CreateLocalJob', { Printer: DEMO.printer.name, Type: 'Copy', ...query }, over));
  const idOf = (answer: { headers?: Record<string, string> }) => answer.headers?.['X-FMP-JobId'] ?? '';

  it('creates a local job of the user on the named printer and answers its id', () => {
    const answer = create({ Copies: '2' });
    expect(answer.body).toBe('');
    const job = s.localJobs.find(idOf(answer));
    expect(job).toMatchObject({ userId: alice.id, printerId: demoPrinter.id, state: 'Pending' });
    expect(job?.fields).toMatchObject({ Copies: 2 });
  });

  it('answers the same job for a resend with the same Idempotency-Key', () => {
    const first = idOf(create({}, { idempotencyKey: 'key-1' }));
    expect(idOf(create({ Copies: '3' }, { idempotencyKey: 'key-1' }))).toBe(first);
    expect(idOf(create({}, { idempotencyKey: 'key-2' }))).not.toBe(first);
  });

  it('answers code 12 listing every broken parameter rule', async () => {
    expect(await failure(() => create({ Type: 'Scan', Copies: '0' }))).toEqual({
      code: 12,
      detail: 'Type: must be Copy; Copies: must be an integer from 1 to 9999',
    });
    expect(await failure(() => updateLocalJob(s, call('UpdateLocalJob', { Duplex: '2' })))).toEqual({
      code: 12,
      detail: 'JobId: is required; Duplex: must be 0 or 1',
    });
  });

  it('answers code 4 for the pull-printing queue and for an unknown printer', async () => {
    const queue = s.queue.ensureQueue(admin.organizationId);
    expect(await failure(() => create({ Printer: queue.printerId }))).toEqual({
      code: 4,
      detail: 'Printer must be a physical printer, not the pull-printing queue',
    });
    expect(await failure(() => create({ Printer: 'Nowhere' }))).toEqual({
      code: 4,
      detail: 'Printer "Nowhere" is not a printer of this organization',
    });
  });

  it('updates a Pending job, and answers code 13 for an unknown, ended or closed one', async () => {
    const id = idOf(create({}));
    expect(updateLocalJob(s, call('UpdateLocalJob', { JobId: id, PrintedPages: '4' }))).toEqual({ body: '' });
    expect(s.localJobs.find(id)?.fields).toMatchObject({ PrintedPages: 4 });
    const other = idOf(create({}, { user: admin }));
    expect(await failure(() => updateLocalJob(s, call('UpdateLocalJob', { JobId: other })))).toEqual({
      code: 13,
      detail: `JobId ${other} is not a local job of yours`,
    });
    updateLocalJob(s, call('UpdateLocalJob', { JobId: id, Status: 'Succeeded' }));
    expect(await failure(() => updateLocalJob(s, call('UpdateLocalJob', { JobId: id })))).toEqual({
      code: 13,
      detail: `JobId ${id} already ended`,
    });
    const idle = idOf(create({}));
    clock.advance(24 * 60 * 60 * 1000);
    expect(await failure(() => updateLocalJob(s, call('UpdateLocalJob', { JobId: idle })))).toEqual({
      code: 13,
      detail: `JobId ${idle} was closed after 24 hours without update`,
    });
  });
});

describe('PrepareUpload', () => {
  const prepare = (query: Record<string, string>) =>
    prepareUpload(s, call('PrepareUpload', { DocumentName: 'Scan', FileExtension: 'pdf', ...query }));

  it("answers a signed upload URL of the storage endpoint and the upload's headers", async () => {
    const upload = parseUploadBody((await prepare({ FileExtension: ' PDF ', PageNumber: '100000' })).body);
    expect(upload.uri).toMatch(/^https:\/\/print\.test\/storage\/uploads\/[0-9a-f-]{36}\?./);
    const fileId = new URL(upload.uri).pathname.split('/').at(-1)!;
    expect(upload.uri.endsWith(`?${s.files.signUpload(fileId)}`)).toBe(true);
    expect(upload.httpHeaders).toEqual({ 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' });
    const xps = parseUploadBody(
      (await prepare({ FileExtension: 'xps', DocumentName: 'x'.repeat(255) })).body,
    );
    expect(xps.httpHeaders['Content-Type']).toBe('application/vnd.ms-xpsdocument');
  });

  it.each([
    [{ DocumentName: '' }, 'DocumentName is required'],
    [{ DocumentName: '   ' }, 'DocumentName is required'],
    [{ DocumentName: 'x'.repeat(256) }, 'DocumentName must be at most 255 characters'],
    [{ FileExtension: '' }, 'FileExtension is required: 1 to 16 letters or digits, without the dot'],
    [{ FileExtension: '.pdf' }, 'FileExtension is required: 1 to 16 letters or digits, without the dot'],
    [
      { FileExtension: 'p'.repeat(17) },
      'FileExtension is required: 1 to 16 letters or digits, without the dot',
    ],
    [{ FileExtension: 'pdf.' }, 'FileExtension is required: 1 to 16 letters or digits, without the dot'],
    [{ PageNumber: '0' }, 'PageNumber must be an integer from 1 to 100000'],
    [{ PageNumber: '100001' }, 'PageNumber must be an integer from 1 to 100000'],
  ])('answers code 11 for %j', async (query, detail) => {
    expect(await failure(() => prepare(query))).toEqual({ code: 11, detail });
  });

  it('answers code 11 without a DocumentName or FileExtension parameter at all', async () => {
    const bare = (query: Record<string, string>) => prepareUpload(s, call('PrepareUpload', query));
    expect(await failure(() => bare({ FileExtension: 'pdf' }))).toEqual({
      code: 11,
      detail: 'DocumentName is required',
    });
    expect(await failure(() => bare({ DocumentName: 'Scan' }))).toEqual({
      code: 11,
      detail: 'FileExtension is required: 1 to 16 letters or digits, without the dot',
    });
  });
});
