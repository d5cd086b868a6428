/**
 * Release benchmark: pull printing against printing straight to the printer, in the same run on
 * the same parts — the emulator (demo seed, in-memory database), the agent with a built-in
 * VirtualPrinter as "Demo Printer" (the seed's pull printer) and a release station on a
 * socket:// reader, swiped exactly as `printrelay swipe` does.
 *
 *   npm run bench:release            (BENCH_SWIPES=50, BENCH_RELEASE_JOBS=100)
 *
 * 1. Latency, one job at a time: swipe -> first byte at the printer (the virtual printer's
 *    document file appearing in its output folder), p50/p95 over BENCH_SWIPES swipes, each with
 *    one held job; against /sfapi Print straight to "Demo Printer" -> first byte, as often.
 *    Uploads happen before the clock starts on both paths.
 * 2. Volume: BENCH_RELEASE_JOBS held jobs released by ONE swipe, until the last document is
 *    printed; against the same number of /sfapi Print calls to "Demo Printer" (all submitted at
 *    once), until the last document is printed.
 * Prints both figures for both paths, then last a line `ratio <release/direct throughput>`.
 */
import { demoAgentConfig } from '../test/support/demo-session.js';
import { mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/agent/agent.js';
import type { SessionSummary } from '../src/agent/release/release-session.js';
import { sendSwipe } from '../src/cardreader/socket/socket-reader.js';
import type { SfapiClient } from '../src/client/sfapi-client.js';
import { DEMO, defaultEmulatorSeed } from '../src/config/load-config.js';
import { createEmulator } from '../src/emulator/app.js';
import { silentLogger } from '../src/log/logger.js';
import { VirtualPrinter } from '../src/printing/virtual/virtual-printer.js';
import { freePort } from '../test/support/peers.js';
import { writePdf } from '../test/support/pdf.js';
import { percentile } from './support/stats.js';
import { printerIdOf, QUEUE_PRINTER, signIn } from '../test/e2e/pull-printing-support.js';

const swipes = Number(process.env.BENCH_SWIPES ?? 50);
const releaseJobs = Number(process.env.BENCH_RELEASE_JOBS ?? 100);

/** Counts documents appearing in the printer's output folder; `next()` resolves at the n-th one. */
class ArrivalWatch {
  private seen = 0;
  private waiters: { count: number; resolve: (at: number) => void }[] = [];
  private readonly watcher;

  constructor(dir: string) {
    this.watcher = watch(dir, (event, name) => {
      if (event !== 'rename' || !name || name.endsWith('.tmp')) return;
      this.seen += 1;
      const at = performance.now();
      const due = this.waiters.filter((w) => w.count <= this.seen);
      this.waiters = this.waiters.filter((w) => w.count > this.seen);
      for (const waiter of due) waiter.resolve(at);
    });
  }

  /** Resolves with the time at which `more` further documents have appeared. */
  after(more: number): Promise<number> {
    const count = this.seen + more;
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  close(): void {
    this.watcher.close();
  }
}

/** Uploads and prints a file to a printer through /sfapi; returns the job id. */
async function submit(sfapi: SfapiClient, file: string, printerId: string): Promise<string> {
  const { fileid, sasUri } = await sfapi.prepareUpload();
  await sfapi.upload(sasUri, file, () => {});
  return (await sfapi.print({ fileid, type: 'pdf', alias: 'bench.pdf', printerid: printerId })).jobid;
}

/** Prepares an upload ahead of time; the returned function is the timed Print call. */
async function staged(sfapi: SfapiClient, file: string, printerId: string): Promise<() => Promise<unknown>> {
  const { fileid, sasUri } = await sfapi.prepareUpload();
  await sfapi.upload(sasUri, file, () => {});
  return () => sfapi.print({ fileid, type: 'pdf', alias: 'bench.pdf', printerid: printerId });
}

interface Bench {
  sfapi: SfapiClient;
  file: string;
  queueId: string;
  printerId: string;
  reader: string;
  arrivals: ArrivalWatch;
  sessionEnd(): Promise<SessionSummary>;
}

async function latencyDirect(b: Bench, runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const print = await staged(b.sfapi, b.file, b.printerId);
    const arrived = b.arrivals.after(1);
    const t0 = performance.now();
    await print();
    out.push((await arrived) - t0);
  }
  return out.sort((x, y) => x - y);
}

async function latencyRelease(b: Bench, runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    await submit(b.sfapi, b.file, b.queueId);
    const ended = b.sessionEnd();
    const arrived = b.arrivals.after(1);
    const t0 = performance.now();
    await sendSwipe(b.reader, DEMO.user.card);
    out.push((await arrived) - t0);
    const summary = await ended;
    if (summary.printed.length !== 1) throw new Error(`a swipe released ${summary.printed.length} jobs`);
  }
  return out.sort((x, y) => x - y);
}

async function volumeDirect(b: Bench): Promise<number> {
  const prints = [];
  for (let i = 0; i < releaseJobs; i++) prints.push(await staged(b.sfapi, b.file, b.printerId));
  const done = b.arrivals.after(releaseJobs);
  const t0 = performance.now();
  await Promise.all(prints.map((print) => print()));
  return ((await done) - t0) / 1000;
}

async function volumeRelease(b: Bench): Promise<number> {
  for (let i = 0; i < releaseJobs; i++) await submit(b.sfapi, b.file, b.queueId);
  const ended = b.sessionEnd();
  const done = b.arrivals.after(releaseJobs);
  const t0 = performance.now();
  await sendSwipe(b.reader, DEMO.user.card);
  const seconds = ((await done) - t0) / 1000;
  const summary = await ended;
  if (summary.printed.length !== releaseJobs)
    throw new Error(`one swipe released ${summary.printed.length} jobs`);
  return seconds;
}

function line(label: string, sorted: number[]): string {
  return `${label} p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms (${sorted.length} runs)`;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-release-'));
  const stops: (() => Promise<void>)[] = [];
  try {
    const logger = silentLogger();
    const printed = join(work, 'printed');
    const printer = new VirtualPrinter({ name: DEMO.printer.name, outputDir: printed, logger });
    const { uri } = await printer.start();
    stops.unshift(() => printer.stop());
    const emulator = await createEmulator({
      db: ':memory:',
      dataDir: join(work, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger,
    });
    stops.unshift(() => emulator.close());
    const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
    const reader = `socket://127.0.0.1:${await freePort()}`;
    const listeners: ((s: SessionSummary) => void)[] = [];
    const config = demoAgentConfig(url, {
      printers: [{ name: DEMO.printer.name, uri }],
      release_stations: [
        {
          name: 'bench station',
          reader,
          printer: DEMO.printer.name,
          pull_url: url,
          password: DEMO.printer.pullPrintingPassword,
          idle_timeout_s: 600,
        },
      ],
    });
    const agent = new Agent({
      config,
      dataDir: join(work, 'agent'),
      logger,
      release: { onSessionEnd: (_name, summary) => listeners.shift()?.(summary) },
    });
    await agent.start();
    stops.unshift(() => agent.stop());
    const app = await signIn(url, DEMO.user.email, DEMO.user.password);
    stops.unshift(() => app.close());
    const arrivals = new ArrivalWatch(printed);
    stops.unshift(async () => arrivals.close());
    const bench: Bench = {
      sfapi: app.sfapi,
      file: await writePdf(join(work, 'one.pdf'), 1, 'PrintRelay release benchmark'),
      queueId: await printerIdOf(app.sfapi, QUEUE_PRINTER),
      printerId: await printerIdOf(app.sfapi, DEMO.printer.name),
      reader,
      arrivals,
      sessionEnd: () => new Promise((resolve) => listeners.push(resolve)),
    };

    // Warm both paths up (connections, JIT, prepared statements) before measuring.
    await latencyDirect(bench, 5);
    await latencyRelease(bench, 5);
    const direct = await latencyDirect(bench, swipes);
    const release = await latencyRelease(bench, swipes);
    console.log(line('direct  /sfapi Print -> first byte at the printer:', direct));
    console.log(line('release swipe -> first byte at the printer:       ', release));
    console.log(
      `latency ratio release/direct at p50: ${(percentile(release, 50) / percentile(direct, 50)).toFixed(2)}`,
    );

    const directSeconds = await volumeDirect(bench);
    const releaseSeconds = await volumeRelease(bench);
    const directRate = releaseJobs / directSeconds;
    const releaseRate = releaseJobs / releaseSeconds;
    console.log(
      `direct  ${releaseJobs} jobs printed through /sfapi Print: ${directSeconds.toFixed(2)} s = ${directRate.toFixed(1)} jobs/s`,
    );
    console.log(
      `release ${releaseJobs} held jobs released by one swipe:   ${releaseSeconds.toFixed(2)} s = ${releaseRate.toFixed(1)} jobs/s`,
    );
    console.log(`ratio ${(releaseRate / directRate).toFixed(2)}`);
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
