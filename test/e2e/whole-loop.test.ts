/**
 * The whole loop with real parts: an app submits documents through /sfapi/ (PrepareUpload,
 * signed upload, Print, Status), the emulator offers them to the agent over the connector
 * channel, the agent prints them over IPP on the built-in virtual printer AND on ippeveprinter,
 * and the app sees each job finish. Every log line is then searched for the secrets used.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEMO } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/log/logger.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { writePdf } from '../support/pdf.js';
import { pdfFileRecord } from '../support/pdf-file-record.js';
import { peersAvailable } from '../support/peers.js';
import { printAndWait, startWholeLoop, type WholeLoop } from '../support/whole-loop.js';

const haveIppEve = peersAvailable('ippeveprinter');
/** Bytes that are no document of any type. */
const NOISE = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 151 + 7) % 251));

describe.runIf(haveIppEve)('the whole loop in one box', () => {
  const work = mkdtempSync(join(tmpdir(), 'e2e-'));
  const printed = join(work, 'printed');
  const virtual = new VirtualPrinter({ name: 'E2E Virtual', outputDir: printed, logger: silentLogger() });
  let loop: WholeLoop;
  let app: Awaited<ReturnType<WholeLoop['app']>>;
  const secrets: string[] = [];

  beforeAll(async () => {
    const { uri } = await virtual.start();
    loop = await startWholeLoop({
      printers: [
        { name: 'E2E Virtual', uri },
        { name: 'E2E IPP Everywhere', uri: inject('ippeveprinterUri') },
      ],
    });
    app = await loop.app();
    secrets.push(app.token, DEMO.client.secret, DEMO.admin.password, DEMO.user.password);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await loop?.close();
    await virtual.stop();
    rmSync(work, { recursive: true, force: true });
  });

  async function printerId(name: string): Promise<string> {
    const printer = (await app.sfapi.getPrinters()).find((p) => p.name === name);
    if (!printer) throw new Error(`${name} not listed`);
    return printer.id;
  }

  it('prints a 3-page PDF with options on the virtual printer, byte for byte, and reports the pages', async () => {
    const file = await writePdf(join(work, 'report.pdf'), 3);
    const { fileid, sasUri } = await app.sfapi.prepareUpload();
    secrets.push(new URL(sasUri).search.slice(1));
    await app.sfapi.upload(sasUri, file, () => {});
    const { jobid } = await app.sfapi.print({
      fileid,
      type: 'pdf',
      alias: 'report.pdf',
      printerid: await printerId('E2E Virtual'),
      copies: 2,
      duplex: true,
      duplexmode: 2,
      paperid: 9,
      orientation: 2,
      pageRanges: '1-2',
    });
    const { waitForEnd } = await import('../support/whole-loop.js');
    const status = await waitForEnd(app.sfapi, jobid);
    expect(status.jobstatus).toBe(0);
    expect(status.jobstatusstring).toMatch(/\|$/);
    const documents = virtual.printed();
    expect(documents).toHaveLength(1);
    const [doc] = documents;
    expect(readFileSync(doc!.path).equals(readFileSync(file))).toBe(true);
    expect(doc!.pages).toBe(3);
    expect(doc!.attributes).toMatchObject({
      copies: 2,
      sides: 'two-sided-long-edge',
      'orientation-requested': 4,
      'page-ranges': expect.anything(),
    });
    expect(status.jobpagestotal).toBeGreaterThan(0);
  });

  it('prints a PDF and a text file on ippeveprinter and both finish with status 0', async () => {
    const id = await printerId('E2E IPP Everywhere');
    const pdf = await writePdf(join(work, 'one.pdf'), 1);
    const txt = join(work, 'note.txt');
    writeFileSync(txt, 'PrintRelay end-to-end\n');
    const before = readdirSync(inject('ippeveprinterSpool')).length;
    const results = await Promise.all([
      printAndWait(app.sfapi, pdf, { type: 'pdf', printerid: id, alias: 'one.pdf' }),
      printAndWait(app.sfapi, txt, { type: 'txt', printerid: id, alias: 'note.txt' }),
    ]);
    for (const { status } of results) expect(status.jobstatus).toBe(0);
    const spooled = readdirSync(inject('ippeveprinterSpool'));
    expect(spooled.length).toBeGreaterThan(before);
    for (const { jobId } of results) {
      expect(spooled.some((name) => name.includes(`printrelay-${jobId}`))).toBe(true);
    }
  });

  it('fails a docx ippeveprinter does not take with 3011, and Status says why', async () => {
    const id = await printerId('E2E IPP Everywhere');
    const docx = join(work, 'letter.docx');
    writeFileSync(docx, 'PK\u0003\u0004 not a real word document');
    const { status } = await printAndWait(app.sfapi, docx, {
      type: 'docx',
      printerid: id,
      alias: 'letter.docx',
    });
    expect(status.jobstatus).toBe(3011);
    expect(status.jobstatusstring).toMatch(/^ERROR\|RESTART\|.*\S.*\|$/);
    expect(status.jobstatusstring).toMatch(/document-format|not supported/i);
  });

  it('refuses random bytes sent as a PDF at Print, naming type', async () => {
    const id = await printerId('E2E IPP Everywhere');
    const noise = join(work, 'noise.pdf');
    writeFileSync(noise, NOISE);
    await expect(
      printAndWait(app.sfapi, noise, { type: 'pdf', printerid: id, alias: 'noise.pdf' }),
    ).rejects.toThrow(/type: the document is not a PDF \(application\/pdf\): it does not start with %PDF-/);
  });

  it('fails with 3011 naming the type a job of random bytes as a PDF that reached the agent by another route', async () => {
    // As a cloud that does not check documents would offer it: made in the emulator's job store.
    const ctx = loop.emulator.app.emulator;
    const user = ctx.store.users.findByEmail(DEMO.user.email)!;
    const path = join(work, 'noise-job.pdf');
    writeFileSync(path, NOISE);
    const { jobId } = ctx.jobs.create({
      organizationId: user.organizationId,
      userId: user.id,
      printerId: await printerId('E2E IPP Everywhere'),
      file: pdfFileRecord(path, NOISE, 'noise.pdf'),
      ticket: { copies: 1 },
      deleteAfterPrint: false,
    });
    const { waitForEnd } = await import('../support/whole-loop.js');
    const status = await waitForEnd(app.sfapi, jobId);
    expect(status.jobstatus).toBe(3011);
    expect(status.jobstatusstring).toBe(
      'ERROR|RESTART|the document is not a PDF (application/pdf): it does not start with %PDF- (in its first 1024 bytes)|',
    );
    expect(status.jobpagesprinted).toBe(0);
    // Refused before the printer: ippeveprinter never got it.
    const spooled = readdirSync(inject('ippeveprinterSpool'));
    expect(spooled.some((name) => name.includes(`printrelay-${jobId}`))).toBe(false);
  });

  it('fails pageranges 5-9 on a 2-page PDF with 3011 naming pageranges and the page count', async () => {
    const id = await printerId('E2E IPP Everywhere');
    const pdf = await writePdf(join(work, 'two.pdf'), 2);
    const { status } = await printAndWait(app.sfapi, pdf, {
      type: 'pdf',
      printerid: id,
      alias: 'two.pdf',
      pageRanges: '5-9',
    });
    expect(status.jobstatus).toBe(3011);
    expect(status.jobstatusstring).toBe(
      'ERROR|RESTART|pageranges 5-9 selects no page of the document, which has 2 pages|',
    );
  });

  it('prints a 2-page PDF whose pageranges 2-9 selects its second page', async () => {
    const id = await printerId('E2E IPP Everywhere');
    const pdf = await writePdf(join(work, 'two-more.pdf'), 2);
    const { status } = await printAndWait(app.sfapi, pdf, {
      type: 'pdf',
      printerid: id,
      alias: 'two-more.pdf',
      pageRanges: '2-9',
    });
    expect(status.jobstatus).toBe(0);
  });

  it('answers Status 2 for a job id it never issued', async () => {
    const status = await app.sfapi.status('00000000-0000-4000-8000-000000000000');
    expect(status.jobstatus).toBe(2);
  });

  it('wrote no secret used in this run to any log line', () => {
    const logs = loop.logs();
    expect(logs.length).toBeGreaterThan(1000);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(3);
      expect(logs.includes(secret), `a log line contains a secret (${secret.slice(0, 3)}...)`).toBe(false);
    }
    expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./);
    expect(logs).not.toMatch(/[?&]sig=/);
  });
});
