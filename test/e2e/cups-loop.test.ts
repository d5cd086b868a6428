/**
 * The whole loop through CUPS, with real parts only: a private cupsd whose queue points at a real
 * ippeveprinter (`lpadmin -m everywhere`), the emulator, and the agent with nothing configured but
 * CUPS discovery. The agent discovers the queue, registers it with the capabilities CUPS reports
 * (checked through /sfapi/GetPrinterProperties against the translation of the queue's own IPP
 * attributes), an app prints a PDF through /sfapi, the agent prints it through `lp`, the document
 * reaches ippeveprinter, and the app sees the job finish with Status 0.
 */
import { demoAgentConfig, demoSession } from '../support/demo-session.js';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { HttpClient } from '../../src/client/http-base.js';
import { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { sleep } from '../../src/lib/abort.js';
import { silentLogger } from '../../src/log/logger.js';
import { CupsBackend } from '../../src/printing/cups/cups-backend.js';
import { ippToPrinterProperties } from '../../src/printing/translate/capabilities/ipp-to-properties.js';
import { addEverywhereQueue, type PrivateCupsd, startCupsd } from '../support/cupsd.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { writePdf } from '../support/pdf.js';
import { peersAvailable } from '../support/peers.js';
import { printAndWait } from '../support/whole-loop.js';

const available = peersAvailable('cupsd', 'lpadmin', 'lp', 'ippeveprinter');
const QUEUE = 'PrintRelay_Loop';

describe.runIf(available)('the loop through a CUPS queue the agent discovered', () => {
  const work = mkdtempSync(join(tmpdir(), 'cups-loop-'));
  let printer: RunningIppEvePrinter;
  let cupsd: PrivateCupsd;
  let emulator: Emulator;
  let agent: Agent;
  let http: HttpClient;
  let sfapi: SfapiClient;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'CUPS Loop Target' });
    cupsd = await startCupsd();
    addEverywhereQueue(cupsd, QUEUE, printer.uri, 'Loop lab');
    emulator = await createEmulator({
      db: ':memory:',
      dataDir: join(work, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger: silentLogger(),
    });
    const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
    const config = demoAgentConfig(url, {
      discovery: { cups: true, cups_server: cupsd.server },
    });
    agent = new Agent({ config, dataDir: join(work, 'agent'), logger: silentLogger() });
    await agent.start();
    ({ http } = await demoSession(url, DEMO.user, 'printing', 60_000));
    sfapi = new SfapiClient(http);
  }, 60_000);

  afterAll(async () => {
    await http?.close();
    await agent?.stop();
    await emulator?.close();
    await cupsd?.stop();
    await printer?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  async function queuePrinterId(): Promise<string> {
    const found = (await sfapi.getPrinters()).find((p) => p.name === QUEUE);
    if (!found) throw new Error(`${QUEUE} is not registered`);
    return found.id;
  }

  it('registers the discovered queue with the capabilities CUPS reports for it', async () => {
    expect(agent.printers().map((p) => p.config.uri)).toEqual([`cups://${QUEUE}?server=${cupsd.server}`]);
    const [props] = await sfapi.getPrinterProperties({ id: await queuePrinterId() });
    const backend = new CupsBackend(`cups://${QUEUE}?server=${cupsd.server}`, { logger: silentLogger() });
    const expected = ippToPrinterProperties((await backend.describe()).attributes);
    await backend.close();
    expect(props).toMatchObject({
      Name: QUEUE,
      Location: 'Loop lab',
      MediaSupported: expected.MediaSupported,
      MediaSupportedId: expected.MediaSupportedId,
      PaperFormats: expected.PaperFormats,
      Resolutions: expected.Resolutions,
      ColorSupported: expected.ColorSupported,
      DuplexSupported: expected.DuplexSupported,
      Trays: expected.Trays,
    });
    expect(props?.MediaSupported).toEqual(expect.arrayContaining(['A4', 'Letter']));
  });

  it('prints a job from /sfapi through lp and reports it finished (Status 0)', async () => {
    const file = await writePdf(join(work, 'through-cups.pdf'), 2, 'Through CUPS');
    const { jobId, status } = await printAndWait(sfapi, file, {
      type: 'pdf',
      printerid: await queuePrinterId(),
      alias: 'through-cups.pdf',
    });
    expect(status.jobstatus).toBe(0);
    let arrived: string[] = [];
    for (let i = 0; i < 200 && arrived.length === 0; i++) {
      arrived = readdirSync(printer.spoolDir).filter((f) => f.includes(jobId) && f.endsWith('.pdf'));
      if (arrived.length === 0) await sleep(50);
    }
    expect(arrived).toHaveLength(1);
  });
});
