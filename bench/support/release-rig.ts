/**
 * The parts of bench:release in one process: the emulator (demo seed, in-memory database), the
 * agent with a built-in VirtualPrinter as "Demo Printer" (the seed's pull printer) and a release
 * station on a socket:// reader, an app signed in as the demo user, and a watch on the printer's
 * output folder. `startReleaseRig` builds them with the logger it is given; `stop()` ends them in
 * reverse order and removes the work folder.
 */
import { mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../../src/agent/agent.js';
import type { SessionSummary } from '../../src/agent/release/release-session.js';
import type { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { Logger } from '../../src/log/logger.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { freePort } from '../../test/support/peers.js';
import { writePdf } from '../../test/support/pdf.js';
import { releaseBenchAgentConfig } from './release-bench-config.js';
import { printerIdOf, QUEUE_PRINTER, signIn } from '../../test/e2e/pull-printing-support.js';

/** Counts documents appearing in the printer's output folder; `after(n)` resolves at the n-th more. */
export class ArrivalWatch {
  private seen = 0;
  /** performance.now() of every arrival, in order. */
  readonly times: number[] = [];
  private waiters: { count: number; resolve: (at: number) => void }[] = [];
  private readonly watcher;

  constructor(dir: string) {
    this.watcher = watch(dir, (event, name) => {
      if (event !== 'rename' || !name || name.endsWith('.tmp')) return;
      this.seen += 1;
      const at = performance.now();
      this.times.push(at);
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

/** The running parts. */
export interface ReleaseRig {
  emulator: Emulator;
  sfapi: SfapiClient;
  /** A one-page PDF. */
  file: string;
  /** The "Pull Printing" queue printer's id. */
  queueId: string;
  /** "Demo Printer"'s id (printed to directly). */
  printerId: string;
  /** The station's reader URI (socket://). */
  reader: string;
  arrivals: ArrivalWatch;
  /** Resolves with the summary of the station's next session to end. */
  sessionEnd(): Promise<SessionSummary>;
  stop(): Promise<void>;
}

/**
 * Starts every part with `logger`; `parallelReleases` is the station's `parallel_releases` (its
 * default when undefined). The caller calls stop().
 */
export async function startReleaseRig(logger: Logger, parallelReleases?: number): Promise<ReleaseRig> {
  const work = mkdtempSync(join(tmpdir(), 'bench-release-'));
  const stops: (() => Promise<void>)[] = [async () => rmSync(work, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops) await step().catch(() => {});
  };
  try {
    const printed = join(work, 'printed');
    const printer = new VirtualPrinter({ name: DEMO.printer.name, outputDir: printed, logger });
    const { uri } = await printer.start();
    stops.unshift(() => printer.stop());
    const emulator = await createEmulator({
      db: ':memory:',
      dataDir: join(work, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger,
      // Every round uploads a few hundred documents as one user: no rate limit on PrepareUpload.
      uploadLimits: { prepareRate: { max: 1_000_000, windowMs: 60_000 } },
    });
    stops.unshift(() => emulator.close());
    const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
    const reader = `socket://127.0.0.1:${await freePort()}`;
    const listeners: ((s: SessionSummary) => void)[] = [];
    const config = releaseBenchAgentConfig(url, uri, reader, parallelReleases);
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
    return {
      emulator,
      sfapi: app.sfapi,
      file: await writePdf(join(work, 'one.pdf'), 1, 'PrintRelay release benchmark'),
      queueId: await printerIdOf(app.sfapi, QUEUE_PRINTER),
      printerId: await printerIdOf(app.sfapi, DEMO.printer.name),
      reader,
      arrivals,
      sessionEnd: () => new Promise((resolve) => listeners.push(resolve)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
