import { describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { defaultBackendRegistry } from '../../../../src/printing/backend-registry.js';
import { ExecFileRunner, PowerShell, psQuote } from '../../../../src/printing/windows/command-runner.js';
import type { PdfPrintOptions } from '../../../../src/printing/windows/pdf-print-options.js';
import { newestJob, WinspoolBackend } from '../../../../src/printing/windows/windows-backend.js';
import { WindowsDiscoverer } from '../../../../src/printing/windows/windows-discovery.js';
import { recording, ReplayRunner } from './windows-replay.js';

const logger = silentLogger();
const HP = 'HP Color LaserJet MFP M479fdw';
const HP_URI = 'winspool://HP%20Color%20LaserJet%20MFP%20M479fdw';
const snapshotRule = {
  match: /Get-Printer -Name .*Get-CimInstance -ClassName Win32_Printer/,
  stdout: recording('snapshot-hp-m479fdw.json'),
};
const jobs = (file: string) => ({ match: /Get-PrintJob -PrinterName/, stdout: recording(file) });

describe('WinspoolBackend with recorded PowerShell outputs', () => {
  it('describes a printer from one PowerShell run, quoting the name', async () => {
    const runner = new ReplayRunner([snapshotRule]);
    const description = await new WinspoolBackend(HP_URI, { logger, runner }).describe();
    expect(description).toMatchObject({
      uri: HP_URI,
      name: HP,
      makeAndModel: 'HP Color LaserJet Pro M478f-9f PCL-6 (V4)',
      state: 'idle',
      stateReasons: ['none'],
      location: 'Floor 2, copy room',
      documentFormats: ['application/pdf'],
    });
    expect(runner.scripts).toHaveLength(1);
    expect(runner.scripts[0]).toContain(`Get-Printer -Name 'HP Color LaserJet MFP M479fdw'`);
    expect(runner.programs[0]).toBe(
      'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command',
    );
  });

  it('reports a missing printer as a permanent error', async () => {
    const runner = new ReplayRunner([
      { match: /Get-Printer -Name/, stderr: recording('printer-not-found.txt') },
    ]);
    const backend = new WinspoolBackend('winspool://No%20Such%20Printer', { logger, runner });
    await expect(backend.describe()).rejects.toBeInstanceOf(PermanentError);
    await expect(backend.describe()).rejects.toThrow(/specified printer was not found/);
  });

  it('submits through pdf-to-printer, finds the new spooler job and follows its state', async () => {
    const runner = new ReplayRunner([
      snapshotRule,
      {
        match: /Get-PrintJob/,
        stdout:
          '[{"Id":41,"DocumentName":"quarterly-report.pdf","JobStatus":16,"PagesPrinted":1,"TotalPages":3}]',
      },
    ]);
    const printed: { pdf: string; options: PdfPrintOptions }[] = [];
    const backend = new WinspoolBackend(HP_URI, {
      logger,
      runner,
      printPdf: async (pdf, options) => {
        printed.push({ pdf, options });
        runner.setRules([snapshotRule, jobs('get-printjob-spooling.json')]);
      },
    });
    const submitted = await backend.submit({
      documentPath: 'C:\\ProgramData\\PrintRelay\\spool\\job-7f3e.pdf'.replace(/\\/g, '/'),
      documentFormat: 'application/pdf',
      jobName: 'job-7f3e',
      userName: 'alice',
      ticket: {
        copies: 2,
        duplex: 'long-edge',
        color: false,
        paper: { id: 9 },
        pageRanges: [{ from: 1, to: 2 }],
      },
    });
    expect(submitted).toEqual({ printerJobId: '42' });
    expect(printed[0]?.options).toEqual({
      printer: HP,
      copies: 2,
      side: 'duplexlong',
      monochrome: true,
      paperKind: 9,
      pages: '1-2',
    });
    runner.setRules([jobs('get-printjob-printing.json')]);
    expect(await backend.jobState('42')).toEqual({
      state: 'pending',
      reasons: ['none'],
      pagesCompleted: 0,
      pagesTotal: 2,
    });
    runner.setRules([jobs('get-printjob-error.json')]);
    expect((await backend.jobState('42')).state).toBe('stopped');
    runner.setRules([jobs('get-printjob-printed.json')]);
    expect(await backend.jobState('42')).toMatchObject({ state: 'completed', pagesCompleted: 2 });
    runner.setRules([jobs('get-printjob-empty.json')]);
    expect((await backend.jobState('42')).state).toBe('completed');
  });

  it('rejects documents other than PDF before printing anything', async () => {
    const runner = new ReplayRunner([]);
    const backend = new WinspoolBackend(HP_URI, { logger, runner, printPdf: async () => undefined });
    const job = {
      documentPath: '/tmp/a.txt',
      documentFormat: 'text/plain',
      jobName: 'a',
      userName: 'u',
      ticket: { copies: 1 },
    };
    await expect(backend.submit(job)).rejects.toThrow(/application\/pdf only/);
    expect(runner.scripts).toEqual([]);
  });

  it('turns a pdf-to-printer failure into a retryable error', async () => {
    const runner = new ReplayRunner([snapshotRule, jobs('get-printjob-empty.json')]);
    const backend = new WinspoolBackend(HP_URI, {
      logger,
      runner,
      printPdf: async () => {
        throw new Error('Command failed: SumatraPDF.exe -print-to ...');
      },
    });
    const job = {
      documentPath: '/tmp/a.pdf',
      documentFormat: 'application/pdf',
      jobName: 'a',
      userName: 'u',
      ticket: { copies: 1 },
    };
    await expect(backend.submit(job)).rejects.toBeInstanceOf(RetryableError);
  });

  it('cancels a queued job with Remove-PrintJob and does nothing for a job that left the queue', async () => {
    const runner = new ReplayRunner([
      jobs('get-printjob-spooling.json'),
      { match: /Remove-PrintJob/, stdout: 'null' },
    ]);
    const backend = new WinspoolBackend(HP_URI, { logger, runner });
    await backend.cancel('42');
    expect(runner.scripts.at(-1)).toMatch(
      /; Remove-PrintJob -PrinterName 'HP Color LaserJet MFP M479fdw' -ID 42; 'null'$/,
    );
    expect(runner.scripts.at(-1)).toContain(
      `Remove-PrintJob -PrinterName 'HP Color LaserJet MFP M479fdw' -ID 42; 'null'`,
    );
    runner.scripts.length = 0;
    await backend.cancel('77');
    expect(runner.scripts).toHaveLength(1);
    await backend.cancel('spooled:job.pdf');
    expect(runner.scripts).toHaveLength(1);
  });

  it('is created by the default registry and refuses a URI without a name', () => {
    const context = { dataDir: '/tmp', logger };
    expect(defaultBackendRegistry().create(HP_URI, context)).toBeInstanceOf(WinspoolBackend);
    expect(() => defaultBackendRegistry().create('winspool:///', context)).toThrow(/winspool:\/\/NAME/);
  });
});

describe('WindowsDiscoverer', () => {
  it('lists recorded printers as winspool:// entries', async () => {
    const runner = new ReplayRunner([
      { match: /^.*ConvertTo-Json .*Get-Printer \|/, stdout: recording('get-printer-list.json') },
    ]);
    const result = await new WindowsDiscoverer({ logger, runner }).discover();
    expect(result).toEqual({
      source: 'winspool',
      ok: true,
      printers: [
        {
          name: 'Microsoft Print to PDF',
          uri: 'winspool://Microsoft%20Print%20to%20PDF',
          source: 'winspool',
          makeAndModel: 'Microsoft Print To PDF',
          location: undefined,
        },
        {
          name: HP,
          uri: HP_URI,
          source: 'winspool',
          makeAndModel: 'HP Color LaserJet Pro M478f-9f PCL-6 (V4)',
          location: 'Floor 2, copy room',
        },
        {
          name: '\\\\PRINTSRV01\\Finance-Ricoh',
          uri: 'winspool://%5C%5CPRINTSRV01%5CFinance-Ricoh',
          source: 'winspool',
          makeAndModel: 'RICOH PCL6 UniversalDriver V4.36',
          location: 'Finance',
        },
      ],
    });
  });

  it('reports a failing spooler as an error result, never as no printers', async () => {
    const runner = new ReplayRunner([
      { match: /Get-Printer/, stderr: 'Get-Printer : The spooler service is not reachable.' },
    ]);
    const result = await new WindowsDiscoverer({ logger, runner }).discover();
    expect(result).toEqual({
      source: 'winspool',
      ok: false,
      error: 'Get-Printer: Get-Printer : The spooler service is not reachable.',
    });
  });
});

describe('PowerShell plumbing', () => {
  it.each([
    ['plain', "'plain'"],
    ["O'Brien's", "'O''Brien''s'"],
    ['$(rm -r C:\\)', "'$(rm -r C:\\)'"],
  ])('psQuote(%s)', (value, quoted) => {
    expect(psQuote(value)).toBe(quoted);
  });

  it('decodes JSON with a byte order mark and treats empty output as null', async () => {
    const ps = new PowerShell(
      new ReplayRunner([
        { match: /one/, stdout: '\uFEFF{"a":1}\r\n' },
        { match: /two/, stdout: '' },
      ]),
    );
    expect(await ps.json('one', 'one')).toEqual({ a: 1 });
    expect(await ps.json('two', 'two')).toBeNull();
  });

  it('runs a real program through ExecFileRunner and reports its exit code', async () => {
    const result = await new ExecFileRunner().run('/bin/sh', ['-c', 'printf out; printf err >&2; exit 3']);
    expect(result).toEqual({ stdout: 'out', stderr: 'err', exitCode: 3 });
    await expect(new ExecFileRunner().run('/nonexistent/powershell.exe', [])).rejects.toBeInstanceOf(
      RetryableError,
    );
    await expect(new ExecFileRunner().run('/bin/sleep', ['5'], { timeoutMs: 50 })).rejects.toThrow(
      /did not finish in time/,
    );
    const aborted = new ExecFileRunner().run('/bin/sleep', ['5'], {
      signal: AbortSignal.abort(new Error('stopping')),
    });
    await expect(aborted).rejects.toThrow('stopping');
  });

  it('picks the job with the document name among new jobs', () => {
    const list = [
      { Id: 5, DocumentName: 'a.pdf' },
      { Id: 9, DocumentName: 'other.pdf' },
      { Id: 7, DocumentName: 'a.pdf' },
    ];
    expect(newestJob(list, new Set([5]), 'a.pdf')?.Id).toBe(7);
    expect(newestJob(list, new Set([5, 7]), 'a.pdf')?.Id).toBe(9);
    expect(newestJob(list, new Set([5, 7, 9]), 'a.pdf')).toBeUndefined();
  });
});
