/**
 * The virtual printer against the real IPP client of CUPS (ipptool and its standard test files)
 * and against PrintRelay's own IppBackend (through the virtual:// registry scheme).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { defaultBackendRegistry } from '../../src/printing/backend-registry.js';
import { IppClient } from '../../src/printing/ipp/ipp-client.js';
import { isFinalJobState } from '../../src/printing/printer-backend.js';
import type { VirtualBackend } from '../../src/printing/virtual/virtual-backend.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { peersAvailable } from '../support/peers.js';

const run = promisify(execFile);
const logger = createLogger({ level: 'silent', pretty: false });

async function makePdf(path: string, pages: number): Promise<void> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([595, 842]).drawText(`page ${i + 1}`, { x: 50, y: 700 });
  writeFileSync(path, await doc.save({ useObjectStreams: false }));
}

describe('VirtualPrinter', () => {
  let dir: string;
  let printer: VirtualPrinter;
  let uri: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vprinter-'));
    printer = new VirtualPrinter({ name: 'Test Virtual', outputDir: join(dir, 'out'), logger });
    ({ uri } = await printer.start());
  });

  afterAll(async () => {
    await printer.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(peersAvailable('ipptool'))('passes ipptool get-printer-attributes.test', async () => {
    const { stdout } = await run('ipptool', ['-t', uri, 'get-printer-attributes.test']);
    expect(stdout).toContain('[PASS]');
    expect(stdout).not.toContain('[FAIL]');
  });

  it.runIf(peersAvailable('ipptool'))(
    'passes ipptool print-job.test with a PDF and counts its pages',
    async () => {
      const pdf = join(dir, 'three.pdf');
      await makePdf(pdf, 3);
      const { stdout } = await run('ipptool', ['-t', '-f', pdf, uri, 'print-job.test']);
      expect(stdout).toContain('[PASS]');
      expect(stdout).not.toContain('[FAIL]');
      const printed = printer.printed().at(-1);
      expect(printed?.pages).toBe(3);
      expect(printed?.documentFormat).toBe('application/pdf');
      expect(readFileSync(printed!.path)).toEqual(readFileSync(pdf));
    },
  );

  it.runIf(peersAvailable('ipptool'))(
    'passes ipptool get-jobs.test and get-job-attributes.test',
    async () => {
      const jobs = await run('ipptool', ['-t', uri, 'get-jobs.test']);
      expect(jobs.stdout).not.toContain('[FAIL]');
      const text = join(dir, 'hello.txt');
      writeFileSync(text, 'hello\n');
      const { stdout } = await run('ipptool', ['-t', '-f', text, uri, 'print-job-and-wait.test']);
      expect(stdout).toContain('[PASS]');
      expect(stdout).not.toContain('[FAIL]');
    },
  );

  it.runIf(peersAvailable('ipptool')).each(['ipp-1.1.test', 'ipp-2.0.test'])(
    'passes the ipptool conformance file %s (operations it serves)',
    async (file) => {
      const text = join(dir, 'conformance.txt');
      writeFileSync(text, 'conformance\n');
      const { stdout } = await run('ipptool', ['-t', '-f', text, uri, file]);
      expect(stdout).toContain('[PASS]');
      expect(stdout).not.toContain('[FAIL]');
    },
  );

  it('rejects a format it does not support', async () => {
    const backend = defaultBackendRegistry().create(uri, { dataDir: dir, logger });
    const path = join(dir, 'doc.ps');
    writeFileSync(path, '%!PS\n');
    await expect(
      backend.submit({
        documentPath: path,
        documentFormat: 'application/postscript',
        jobName: 'ps',
        userName: 'u',
        ticket: { copies: 1 },
      }),
    ).rejects.toMatchObject({ code: 'printer_rejected' });
    await backend.close();
  });

  it('streams a PDF of about 1 MB to the output file, counting pages across chunks', async () => {
    const pdf = join(dir, 'big.pdf');
    const doc = await PDFDocument.create();
    for (let i = 0; i < 400; i++)
      doc.addPage().drawText(`page ${i} ${'x'.repeat(2000)}`, { x: 10, y: 10, size: 4 });
    writeFileSync(pdf, await doc.save({ useObjectStreams: false }));
    const backend = defaultBackendRegistry().create(uri, { dataDir: dir, logger });
    const { printerJobId } = await backend.submit({
      documentPath: pdf,
      documentFormat: 'application/pdf',
      jobName: 'big report.pdf',
      userName: 'alice',
      ticket: { copies: 2, duplex: 'long-edge' },
    });
    const state = await backend.jobState(printerJobId);
    expect(state.state).toBe('completed');
    expect(state.pagesCompleted).toBe(800);
    const printed = printer.printed().find((d) => String(d.jobId) === printerJobId);
    expect(printed?.path).toMatch(new RegExp(`${printerJobId}-big_report.pdf.pdf$`));
    expect(printed?.attributes).toMatchObject({ copies: 2, sides: 'two-sided-long-edge' });
    await backend.close();
  });

  it('accepts jobs concurrently and keeps a history for Get-Jobs', async () => {
    const client = new IppClient({ uri, logger });
    const pdf = join(dir, 'two.pdf');
    await makePdf(pdf, 2);
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.printJob({
          documentPath: pdf,
          documentFormat: 'application/pdf',
          jobName: `parallel-${i}`,
          jobAttributes: [],
        }),
      ),
    );
    expect(new Set(created.map((c) => c.jobId)).size).toBe(6);
    const history = await client.getJobs('completed');
    for (const c of created) {
      expect(history.find((j) => j['job-id'] === c.jobId)).toMatchObject({
        'job-state': 9,
        'job-impressions-completed': 2,
      });
    }
    expect(await client.findJobByName('parallel-3')).toMatchObject({ 'job-id': created[3]!.jobId });
    expect((await client.getJobs('not-completed')).length).toBe(0);
  });

  it('streams a 128 MiB document to disk without holding it in memory', async () => {
    const big = join(dir, 'big.bin');
    const size = 128 * 1024 * 1024;
    writeFileSync(big, '');
    truncateSync(big, size);
    const client = new IppClient({ uri, logger });
    const before = process.memoryUsage().rss;
    const created = await client.printJob({
      documentPath: big,
      documentFormat: 'application/octet-stream',
      jobName: 'big',
      jobAttributes: [],
    });
    const grown = process.memoryUsage().rss - before;
    const printed = printer.printed().find((d) => d.jobId === created.jobId);
    expect(printed?.bytes).toBe(size);
    expect(statSync(printed!.path).size).toBe(size);
    expect(grown).toBeLessThan(size / 2);
    rmSync(printed!.path);
  });
});

describe('virtual:// backend', () => {
  it('starts its own printer, describes it and prints through real IPP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vbackend-'));
    const backend = defaultBackendRegistry().create('virtual://demo', { dataDir: dir, logger });
    try {
      const description = await backend.describe();
      expect(description).toMatchObject({ uri: 'virtual://demo', name: 'demo', state: 'idle' });
      expect(description.documentFormats).toContain('application/pdf');
      const pdf = join(dir, 'one.pdf');
      await makePdf(pdf, 2);
      const { printerJobId } = await backend.submit({
        documentPath: pdf,
        documentFormat: 'application/pdf',
        jobName: 'job-1',
        userName: 'bob',
        ticket: { copies: 1, paper: { id: 9 }, tray: { index: 2 } },
      });
      let state = await backend.jobState(printerJobId);
      while (!isFinalJobState(state.state)) state = await backend.jobState(printerJobId);
      expect(state).toMatchObject({ state: 'completed', pagesCompleted: 2 });
      const printed = (backend as VirtualBackend).printer.printed();
      expect(printed[0]?.path.startsWith(join(dir, 'printed'))).toBe(true);
      expect(printed[0]?.attributes['media-col']).toMatchObject({
        'media-size': { 'x-dimension': 21000, 'y-dimension': 29700 },
        'media-source': 'tray-1',
      });
      await backend.cancel(printerJobId);
    } finally {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
