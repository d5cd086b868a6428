/**
 * The whole loop in one test process, with real parts only: the emulator (in-memory database,
 * demo seed), the agent connected to it as the demo admin's connector, and one printer URI
 * (the shared ippeveprinter, a virtual printer, ...). Every log line of both parts is captured,
 * so tests can prove that no secret reached a log. The caller calls close().
 */
import { demoAgentConfig, demoSession } from './demo-session.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../../src/agent/agent.js';
import { SfapiClient, type SfapiJobStatus, type SfapiPrintRequest } from '../../src/client/sfapi-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { sleep } from '../../src/lib/abort.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { Redactor } from '../../src/log/redaction.js';
import { logCapture } from './log-capture.js';

export interface WholeLoopOptions {
  printers: { name: string; uri: string }[];
  /** pino level of the captured logs; default debug, so the most gets checked for secrets. */
  level?: string;
}

export interface WholeLoop {
  url: string;
  emulator: Emulator;
  agent: Agent;
  logger: Logger;
  /** Every log line written so far. */
  logs(): string;
  /** An app client signed in as alice (scope printing). */
  app(): Promise<{ sfapi: SfapiClient; token: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** Starts emulator and agent; resolves once every printer is listed by GetPrinter. */
export async function startWholeLoop(options: WholeLoopOptions): Promise<WholeLoop> {
  const dir = mkdtempSync(join(tmpdir(), 'whole-loop-'));
  const { lines, destination } = logCapture();
  const redactor = new Redactor();
  const logger = createLogger({ destination, redactor, level: options.level ?? 'debug' });
  const emulator = await createEmulator({
    db: ':memory:',
    dataDir: join(dir, 'emulator'),
    seed: defaultEmulatorSeed(),
    logger: logger.child({ part: 'emulator' }),
  });
  const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
  const config = demoAgentConfig(url, {
    printers: options.printers,
  });
  for (const secret of [DEMO.client.secret, DEMO.admin.password]) redactor.add(secret);
  const agent = new Agent({ config, dataDir: join(dir, 'agent'), logger: logger.child({ part: 'agent' }) });
  await agent.start();

  const openApp = async () => {
    const { http, accessToken } = await demoSession(url);
    return { sfapi: new SfapiClient(http), token: accessToken, close: () => http.close() };
  };

  const waiter = await openApp();
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const listed = new Set((await waiter.sfapi.getPrinters()).map((p) => p.name));
      if (options.printers.every((p) => listed.has(p.name))) break;
      if (Date.now() > deadline) throw new Error(`printers not registered: ${[...listed].join(', ')}`);
      await sleep(50);
    }
  } finally {
    await waiter.close();
  }

  return {
    url,
    emulator,
    agent,
    logger,
    logs: () => lines.join(''),
    app: openApp,
    async close() {
      await agent.stop();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** PrepareUpload, upload, Print, then Status until the job ends; returns the job id and final status. */
export async function printAndWait(
  sfapi: SfapiClient,
  file: string,
  request: Omit<SfapiPrintRequest, 'fileid'>,
  timeoutMs = 60_000,
): Promise<{ jobId: string; status: SfapiJobStatus }> {
  const { fileid, sasUri } = await sfapi.prepareUpload();
  await sfapi.upload(sasUri, file, () => {});
  const { jobid } = await sfapi.print({ ...request, fileid });
  return { jobId: jobid, status: await waitForEnd(sfapi, jobid, timeoutMs) };
}

/** Polls Status until the code is neither 129 nor 1246: after 10 ms, then 1.5 times longer each time up to 250 ms. */
export async function waitForEnd(
  sfapi: SfapiClient,
  jobId: string,
  timeoutMs = 60_000,
): Promise<SfapiJobStatus> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 10; ; wait = Math.min(250, wait * 1.5)) {
    const status = await sfapi.status(jobId);
    if (status.jobstatus !== 129 && status.jobstatus !== 1246) return status;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} still at ${status.jobstatus} (${status.jobstatusstring})`);
    await sleep(wait);
  }
}
