/**
 * The cups:// backend against a real, private cupsd (own config, spool and port, started here)
 * whose queue points at a real ippeveprinter (`lpadmin -m everywhere`): discovery over
 * CUPS-Get-Printers, describe() from CUPS's own IPP for the queue, a PDF through `lp`
 * (unix-print), the job seen completed in CUPS and the document arriving at ippeveprinter.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrintersSurvey } from '../../src/cli/commands/printers.js';
import { sleep } from '../../src/lib/abort.js';
import { BackendPool, describeAll } from '../../src/agent/printer-sync/printer-sync-inventory.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { Redactor } from '../../src/log/redaction.js';
import { defaultBackendRegistry } from '../../src/printing/backend-registry.js';
import { CupsBackend } from '../../src/printing/cups/cups-backend.js';
import { CupsDiscoverer } from '../../src/printing/cups/cups-printers.js';
import { type BackendJobState, isFinalJobState } from '../../src/printing/printer-backend.js';
import { ippToPrinterProperties } from '../../src/printing/translate/capabilities/ipp-to-properties.js';
import { addEverywhereQueue, type PrivateCupsd, startCupsd } from '../support/cupsd.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { freePort, peersAvailable, which } from '../support/peers.js';

const available = peersAvailable('cupsd', 'lpadmin', 'lp', 'ippeveprinter');
const QUEUE = 'PrintRelay_Test';

async function onePagePdf(dir: string): Promise<string> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('PrintRelay through CUPS', { x: 72, y: 760, size: 18 });
  const path = join(dir, 'cups-test.pdf');
  writeFileSync(path, await doc.save());
  return path;
}

async function untilFinal(backend: CupsBackend, jobId: string): Promise<BackendJobState> {
  for (let i = 0; i < 600; i++) {
    const state = await backend.jobState(jobId);
    if (isFinalJobState(state.state)) return state;
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe.runIf(available)('cups:// backend with a private cupsd and ippeveprinter', () => {
  let printer: RunningIppEvePrinter;
  let cupsd: PrivateCupsd;
  let uri: string;
  const logger = silentLogger();

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'CUPS Target' });
    cupsd = await startCupsd();
    const server = `127.0.0.1:${cupsd.port}`;
    addEverywhereQueue(cupsd, QUEUE, printer.uri, 'Lab bench');
    uri = `cups://${QUEUE}?server=${server}`;
  });

  afterAll(async () => {
    await cupsd?.stop();
    await printer?.stop();
  });

  it('discovers the queue over CUPS-Get-Printers', async () => {
    const result = await new CupsDiscoverer({
      logger,
      server: { host: '127.0.0.1', port: cupsd.port },
    }).discover();
    expect(result).toEqual({
      source: 'cups',
      ok: true,
      printers: [
        {
          name: QUEUE,
          uri,
          source: 'cups',
          makeAndModel: expect.stringContaining('IPP Everywhere'),
          location: 'Lab bench',
        },
      ],
    });
  });

  it('reports an unreachable CUPS server as an error, not as no printers', async () => {
    const port = await freePort();
    const result = await new CupsDiscoverer({ logger, server: { host: '127.0.0.1', port } }).discover();
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toMatch(/unreachable/);
  });

  it('describes the queue from CUPS IPP with capabilities the translation maps', async () => {
    const backend = defaultBackendRegistry().create(uri, { dataDir: cupsd.dir, logger });
    expect(backend).toBeInstanceOf(CupsBackend);
    const description = await backend.describe();
    expect(description).toMatchObject({ uri, name: QUEUE, state: 'idle', location: 'Lab bench' });
    expect(description.makeAndModel).toContain('IPP Everywhere');
    expect(description.documentFormats).toContain('application/pdf');
    expect(description.uuid).toMatch(/^urn:uuid:/);
    const properties = ippToPrinterProperties(description.attributes);
    expect(properties.MediaSupported).toEqual(expect.arrayContaining(['A4', 'Letter']));
    expect(properties.ColorSupported).toBe(false);
    await backend.close();
  });

  it('prints a PDF through lp, sees it complete in CUPS and arrive at ippeveprinter', async () => {
    const backend = new CupsBackend(uri, { logger });
    const pdf = await onePagePdf(cupsd.dir);
    const submitted = await backend.submit({
      documentPath: pdf,
      documentFormat: 'application/pdf',
      jobName: 'relay job 1',
      userName: 'alice',
      ticket: { copies: 1, paper: { id: 9, name: 'A4' }, orientation: 'portrait' },
    });
    expect(submitted.printerJobId).toMatch(/^\d+$/);
    const final = await untilFinal(backend, submitted.printerJobId);
    expect(final.state).toBe('completed');
    let arrived: string[] = [];
    for (let i = 0; i < 200 && arrived.length === 0; i++) {
      arrived = readdirSync(printer.spoolDir).filter(
        (f) => f.includes('relay job 1') || f.includes('relay_job_1'),
      );
      if (arrived.length === 0) await sleep(50);
    }
    expect(arrived.length).toBeGreaterThan(0);
    await expect(backend.cancel(submitted.printerJobId)).resolves.toBeUndefined();
    await backend.close();
  });

  it('lists the queue with mapped properties in `printrelay printers`', async () => {
    const previous = process.env.CUPS_SERVER;
    process.env.CUPS_SERVER = `127.0.0.1:${cupsd.port}`;
    try {
      const survey = await runPrintersSurvey({ deny: ['*nothing*'] });
      expect(survey.failedSources).toEqual([]);
      expect(survey.printers).toHaveLength(1);
      expect(survey.printers[0]).toMatchObject({ name: QUEUE, uri, source: 'cups', ok: true, state: 'idle' });
      expect(survey.printers[0]?.properties?.MediaSupported).toContain('A4');
      const denied = await runPrintersSurvey({ deny: ['PrintRelay_*'] });
      expect(denied.printers).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.CUPS_SERVER;
      else process.env.CUPS_SERVER = previous;
    }
  });

  it('keeps a raw queue (no paper sizes) Offline in the sync inventory while the other queue registers', async () => {
    // A queue without a driver: CUPS describes it with no media-supported at all.
    execFileSync(which('lpadmin') ?? 'lpadmin', [
      '-h',
      cupsd.server,
      '-p',
      'PrintRelay_Raw',
      '-E',
      '-v',
      printer.uri,
      '-m',
      'raw',
    ]);
    const rawUri = `cups://PrintRelay_Raw?server=${cupsd.server}`;
    const lines: string[] = [];
    const log = createLogger({
      level: 'warn',
      redactor: new Redactor(),
      destination: { write: (line: string) => void lines.push(line) },
    });
    const registry = defaultBackendRegistry();
    const pool = new BackendPool(registry, { dataDir: cupsd.dir, logger: log });
    try {
      const printers = await describeAll(
        [
          { entry: { name: 'PrintRelay_Raw', uri: rawUri, enabled: true }, source: 'cups' },
          { entry: { name: QUEUE, uri, enabled: true }, source: 'cups' },
        ],
        pool,
        log,
      );
      expect(printers.map((p) => [p.name, p.reachable, p.state])).toEqual([
        ['PrintRelay_Raw', false, 'stopped'],
        [QUEUE, true, expect.any(String)],
      ]);
      expect(printers[1]?.properties?.MediaSupported).toEqual(expect.arrayContaining(['A4', 'Letter']));
      expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
        expect.objectContaining({
          printer: 'PrintRelay_Raw',
          error: 'media-supported: must name at least one paper size (or media-col-database)',
          msg: 'printer answered but its attributes cannot be used; kept Offline until they can',
        }),
      ]);
    } finally {
      await pool.closeAll();
    }
  });
});
