/**
 * The rig of the fault proofs: a dedicated ippeveprinter, the emulator (in this process, on a
 * database file), the agent as a real `printrelay agent` child process that the test SIGKILLs
 * and starts again on the same data directory, and fault proxies in front of the cloud and the
 * printer so faults land at chosen points of the conversation. Counts what the printer really
 * printed (its kept spool files, one `<printer job id>-printrelay-<job id>.<ext>` per print).
 * With `copyStation`, the agent also runs a release station that counts copies from device-app
 * events (its /TPFM/ requests go through the cloud proxy too; test/e2e/copy-sessions.ts drives it).
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { HttpClient } from '../../src/client/http-base.js';
import { fetchPasswordToken } from '../../src/client/oauth-client.js';
import { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { sleep } from '../../src/lib/abort.js';
import { silentLogger } from '../../src/log/logger.js';
import { CliProcess } from '../integration/cli-process.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { demoCloudSection } from '../support/demo-session.js';
import { freePort } from '../support/peers.js';

export const PRINTER_NAME = 'Fault Proof Printer';
export const COPY_STATION_NAME = 'Fault Proof Copier';

/** The rig's copy-counting release station: where cards are swiped and device-app events go. */
export interface CopyStation {
  name: string;
  /** socket:// URI of the station's card reader (sendSwipe). */
  readerUri: string;
  /** Base URL of the agent's copy-events endpoint (the same port on every start). */
  eventsUrl: string;
  /** The station's device secret. */
  secret: string;
}

export interface FaultRig {
  dir: string;
  emulator: Emulator;
  emulatorUrl: string;
  printer: RunningIppEvePrinter;
  cloudProxy: FaultProxy;
  printerProxy: FaultProxy;
  sfapi: SfapiClient;
  agentDataDir: string;
  configPath: string;
  copyStation?: CopyStation;
  close(): Promise<void>;
}

/** Starts printer, emulator, proxies and an app client signed in as alice. */
export async function startFaultRig(
  jobs: Record<string, number> = {},
  /** `connectorProtocol`: the highest channel protocol the emulator speaks (default 3). */
  options: { copyStation?: boolean; connectorProtocol?: number } = {},
): Promise<FaultRig> {
  const dir = mkdtempSync(join(tmpdir(), 'fault-rig-'));
  const printer = await startIppEvePrinter({ name: PRINTER_NAME });
  const emulator = await createEmulator({
    db: join(dir, 'emulator.db'),
    dataDir: join(dir, 'emulator'),
    seed: defaultEmulatorSeed(),
    logger: silentLogger(),
    ...(options.connectorProtocol === undefined
      ? {}
      : { connectorChannel: { maxProtocol: options.connectorProtocol } }),
  });
  const emulatorUrl = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
  const cloudProxy = new FaultProxy(Number(new URL(emulatorUrl).port));
  await cloudProxy.start();
  const printerProxy = new FaultProxy(printer.port);
  await printerProxy.start();
  const configPath = join(dir, 'agent.yaml');
  const copyStation: CopyStation | undefined = options.copyStation
    ? {
        name: COPY_STATION_NAME,
        readerUri: `socket://127.0.0.1:${await freePort()}`,
        eventsUrl: `http://127.0.0.1:${await freePort()}`,
        secret: DEMO.printer.pullPrintingPassword,
      }
    : undefined;
  writeAgentConfig(configPath, `http://127.0.0.1:${cloudProxy.port}`, printerProxy.port, jobs, copyStation);
  const settings = { authUrl: emulatorUrl, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
  const token = await fetchPasswordToken(settings, DEMO.user.email, DEMO.user.password, 'printing');
  const http = new HttpClient({
    baseUrl: emulatorUrl,
    timeoutMs: 30_000,
    tokens: { token: async () => token.access_token, invalidate: () => {} },
  });
  return {
    dir,
    emulator,
    emulatorUrl,
    printer,
    cloudProxy,
    printerProxy,
    sfapi: new SfapiClient(http),
    agentDataDir: join(dir, 'agent'),
    configPath,
    ...(copyStation ? { copyStation } : {}),
    async close() {
      await http.close();
      await cloudProxy.close();
      await printerProxy.close();
      await emulator.close();
      await printer.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The agent's YAML: the demo admin's connector, one printer behind the printer proxy, fast
 * retries; with `copyStation`, a release station on that printer counting copies from device-app
 * events only, its pull service (/TPFM/) behind the same cloud proxy. Sessions end when the test
 * removes the card (no timeout, no polling of their own: every reading follows an event).
 */
export function writeAgentConfig(
  path: string,
  cloudUrl: string,
  printerPort: number,
  jobs: Record<string, number> = {},
  copyStation?: CopyStation,
): void {
  const copies = copyStation && {
    release_stations: [
      {
        name: copyStation.name,
        reader: copyStation.readerUri,
        printer: PRINTER_NAME,
        pull_url: cloudUrl,
        password: copyStation.secret,
        copy_jobs: { sources: ['http'], paper_id: 9, poll_interval_s: 300, session_timeout_s: 86400 },
      },
    ],
    copy_events: { host: '127.0.0.1', port: Number(new URL(copyStation.eventsUrl).port) },
  };
  const config = {
    version: 1,
    cloud: { ...demoCloudSection(cloudUrl), request_timeout_s: 10 },
    jobs: { retry_initial_ms: 20, retry_max_ms: 300, status_poll_ms: 50, ...jobs },
    log: { level: 'info' },
    printers: [{ name: PRINTER_NAME, uri: `ipp://127.0.0.1:${printerPort}/ipp/print` }],
    ...copies,
  };
  writeFileSync(path, stringify(config));
}

/** Starts `printrelay agent` on the rig's config and data directory; resolves once it runs. */
export async function startAgentProcess(rig: FaultRig): Promise<CliProcess> {
  const agent = new CliProcess(['agent', '--config', rig.configPath, '--data-dir', rig.agentDataDir]);
  await agent.waitFor(/agent running/);
  return agent;
}

/** The cloud id of the rig's printer, once the agent registered it. */
export async function printerIdOf(sfapi: SfapiClient, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await sfapi.getPrinters()).find((p) => p.name === PRINTER_NAME);
    if (found) return found.id;
    if (Date.now() > deadline) throw new Error(`${PRINTER_NAME} never registered`);
    await sleep(100);
  }
}

/** A text document of `bytes` bytes whose lines name the job number (so documents differ). */
export function writeDocument(dir: string, n: number, bytes: number): string {
  const line = `fault proof document ${n} `.padEnd(79, '.');
  const file = join(dir, `doc-${n}.txt`);
  writeFileSync(file, `${line}\n`.repeat(Math.ceil(bytes / 80)).slice(0, bytes));
  return file;
}

/** Uploads and prints `count` documents, `lanes` at a time; resolves with the cloud job ids in order. */
export async function submitJobs(
  rig: FaultRig,
  printerId: string,
  first: number,
  count: number,
  bytes: number,
  lanes = 4,
): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) {
      const file = writeDocument(rig.dir, first + i, bytes);
      const { fileid, sasUri } = await rig.sfapi.prepareUpload();
      await rig.sfapi.upload(sasUri, file, () => {});
      const { jobid } = await rig.sfapi.print({ fileid, type: 'txt', printerid: printerId, alias: 'f.txt' });
      ids[i] = jobid;
      rmSync(file);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return ids;
}

/**
 * What the printer printed per job, from its kept documents: `whole` counts printer jobs with the
 * complete document (`bytes` long), `partial` those holding a document cut short.
 */
export function printsPerJob(
  spoolDir: string,
  bytes: number,
): Map<string, { whole: number; partial: number }> {
  const byJob = new Map<string, { whole: number; partial: number }>();
  for (const file of readdirSync(spoolDir)) {
    const match = /^(\d+)-printrelay-(.+)\.(txt|dat)$/.exec(file);
    if (!match) continue;
    const jobId = match[2] as string;
    const counts = byJob.get(jobId) ?? { whole: 0, partial: 0 };
    if (statSync(join(spoolDir, file)).size === bytes) counts.whole++;
    else counts.partial++;
    byJob.set(jobId, counts);
  }
  return byJob;
}

/** Final Status of every job: polls each until it is neither 129 nor 1246 (deadline for all). */
export async function finalStatuses(
  sfapi: SfapiClient,
  jobIds: string[],
  timeoutMs: number,
): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  const result = new Map<string, number>();
  for (const jobId of jobIds) {
    for (;;) {
      const status = await sfapi.status(jobId);
      if (status.jobstatus !== 129 && status.jobstatus !== 1246) {
        result.set(jobId, status.jobstatus);
        break;
      }
      if (Date.now() > deadline) {
        result.set(jobId, status.jobstatus);
        break;
      }
      await sleep(100);
    }
  }
  return result;
}

/** `promise`, or a rejection with `message` (made at that moment when a function) after `ms`. */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  message: string | (() => string),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(typeof message === 'string' ? message : message())), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
