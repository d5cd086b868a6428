/**
 * The whole loop in one process for `printrelay demo`: the emulator (seeded with the demo
 * seed), the virtual printer writing into `<dataDir>/printed`, and the agent connecting the
 * printer to the emulator, paired by the pairing-code grant (the emulator approves the code
 * in-process as the demo admin). The agent also runs a release station for "Demo Printer" (the seed's
 * pull printer) whose reader is `socket://127.0.0.1:<a free port>` (written to DIR/agent.yaml, where
 * `printrelay swipe 04A1B2C3D4 --data-dir DIR` finds it), so a second demo never fights over a
 * fixed port and a swipe reaches this demo's station; the `reader` option or the
 * variable PRINTRELAY_RELEASE_STATIONS__0__READER names another reader. start() brings them up
 * in that order and waits until the printer is visible to apps; stop() takes them down in
 * reverse. The caller calls stop().
 */
import type { WebhookOptions } from '../emulator/webhooks/webhook-parts.js';
import { createServer } from 'node:net';
import type { Writable } from 'node:stream';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { StationStatus } from '../agent/release/release-stations.js';
import type { AgentConfig } from '../config/agent-schema.js';
import { DEMO, defaultEmulatorSeed } from '../config/load-config.js';
import { throwIfAborted } from '../lib/abort.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Logger } from '../log/logger.js';
import type { Redactor } from '../log/redaction.js';
import { demoAgentConfig } from './demo-agent-config.js';
import { servedDemoPrinter, waitForPrinter } from './demo-printer-ready.js';
import { CliError } from './cli-runtime.js';
import type { DemoControlInfo, DemoInfo, DemoReleaseInfo } from './demo-banner.js';
import type { AgentStatus } from '../agent/control/agent-status.js';
import {
  type DemoEmulatorParts,
  findDemoNameClash,
  nameClashError,
  removeClashingPrinter,
} from './demo-name-clash.js';
import type { TlsMaterial } from './tls-files.js';
import { writeFileAtomic } from '../lib/atomic-file.js';
import { makePrivateDir } from '../lib/private-paths.js';
import { acquireDataDirLock, DataDirLockedError } from '../store/data-dir-lock.js';

/** Where the demo runs. */
export interface DemoStackOptions {
  host: string;
  /** Emulator port; 0 picks a free one. */
  port: number;
  /** Everything the demo stores goes below this directory. */
  dataDir: string;
  logger: Logger;
  /** How long to wait for the printer to appear in the cloud; default 60 s. */
  readyTimeoutMs?: number;
  /** Time source for every part; default the wall clock. */
  clock?: Clock;
  /** Reader URI of the demo's release station; default socket://127.0.0.1 on a free port. */
  reader?: string;
  /** Environment read for PRINTRELAY_RELEASE_STATIONS__* overrides; default process.env. */
  env?: Record<string, string | undefined>;
  /** The logger's redactor (card numbers seen by the station are registered with it). */
  redactor?: Redactor;
  /** Where the station's terminal lines go; default standard output. */
  releaseOutput?: Writable;
  /** The URL apps reach the emulator at (a reverse proxy in front); the banner shows it. */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto/Host/Port from that proxy. */
  trustProxy?: boolean;
  /** Ranges fileurl and webhooks may reach besides public addresses; default DEMO_OUTBOUND_ALLOW. */
  outboundAllow?: readonly string[];
  /** Browser origins allowed cross-origin besides registered redirect URLs. */
  corsOrigins?: readonly string[];
  /** Webhook delivery: an extra CA of the receivers, their answer deadline (`printrelay emulator`'s flags). */
  webhooks?: WebhookOptions;
  /**
   * Serve HTTPS with this key and certificate; the demo's agent trusts `certFile` through
   * cloud.ca_file (never by turning verification off).
   */
  tls?: TlsMaterial;
  /**
   * When another connector owns a printer named "Demo Printer" (demo-name-clash.ts): delete it
   * and register the demo's own; without it the demo refuses with how to fix it.
   */
  replacePrinter?: boolean;
  /** The command line that starts this demo again with --replace-printer (for the clash error). */
  replaceCommand?: string;
}

/** The demo runs on one developer box: its emulator may fetch from and deliver to loopback. */
export const DEMO_OUTBOUND_ALLOW: readonly string[] = ['127.0.0.0/8', '::1/128'];

/** Name of the queue printer the emulator holds pull-printing jobs in. */
export const DEMO_QUEUE_PRINTER = 'Pull Printing';

/** Owns the three parts of the demo; see the module comment. */
export class DemoStack {
  private readonly stoppers: (() => Promise<void>)[] = [];
  private listenUrl: string | undefined;
  /** Binds a pairing code to the demo admin in the running emulator (set by startEmulator). */
  private approvePairing: ((code: string) => void) | undefined;
  /** The running emulator's services (set by startEmulator). */
  private emulatorContext: DemoEmulatorParts | undefined;

  constructor(private readonly options: DemoStackOptions) {}

  /** Starts everything; resolves once a job can be printed. */
  async start(signal?: AbortSignal): Promise<DemoInfo> {
    const dataDir = resolve(this.options.dataDir);
    const printedDir = join(dataDir, 'printed');
    for (const dir of [dataDir, printedDir, join(dataDir, 'emulator'), join(dataDir, 'agent')]) {
      makePrivateDir(dir);
    }
    await this.lockDataDir(dataDir);
    const url = await this.startEmulator(dataDir);
    this.listenUrl = url;
    throwIfAborted(signal);
    const printerUri = await this.startPrinter(printedDir);
    throwIfAborted(signal);
    const reader = this.options.reader ?? `socket://127.0.0.1:${await freeLoopbackPort()}`;
    const tls = this.options.tls;
    // each demo's control API on a port of its own, so `status --config` finds this one
    const config = demoAgentConfig(
      url,
      printerUri,
      { reader, env: this.options.env ?? process.env },
      tls?.certFile,
      { controlPort: await freeLoopbackPort(), dataDir: join(dataDir, 'agent') },
    );
    // agent.yaml holds the client secret and the device password
    writeFileAtomic(join(dataDir, 'agent.yaml'), stringify(config));
    await this.pairAgent(config, join(dataDir, 'agent'), signal);
    let agent = await this.startAgent(config, join(dataDir, 'agent'), signal);
    const clash = this.emulatorContext && findDemoNameClash(this.emulatorContext, agent.connectorId);
    if (clash && this.emulatorContext) {
      const restart = this.options.replaceCommand ?? 'printrelay demo --replace-printer';
      if (!this.options.replacePrinter) throw nameClashError(clash, dataDir, restart);
      this.options.logger.warn(
        { printer: DEMO.printer.name, cloudId: clash.printerId, connector: clash.connectorId },
        "--replace-printer: deleting the printer of another connector that has the demo printer's name",
      );
      removeClashingPrinter(this.emulatorContext, clash);
      await agent.stop();
      agent = await this.startAgent(config, join(dataDir, 'agent'), signal);
    }
    const clock = this.options.clock ?? systemClock;
    const served = servedDemoPrinter(agent.printers(), agent.printerProblems(), dataDir);
    const wait = { timeoutMs: this.options.readyTimeoutMs ?? 60_000, clock, signal };
    const printerId = await waitForPrinter(url, served, { ...wait, ca: tls?.cert });
    const shown = this.options.publicUrl?.replace(/\/+$/, '') ?? url;
    return {
      ...(tls ? { tls: { certFile: tls.certFile, fingerprint: tls.fingerprint, created: tls.created } } : {}),
      url: shown,
      printerUri,
      printerId,
      printedDir,
      dataDir,
      release: releaseInfo(agent.releaseStations()),
      control: controlInfo(agent, join(dataDir, 'agent.yaml')),
    };
  }

  /** Where the emulator itself listens (plain HTTP; a proxy in front forwards to it). */
  emulatorUrl(): string | undefined {
    return this.listenUrl;
  }

  /** Stops the parts in reverse order; safe to call after a failed start. */
  async stop(): Promise<void> {
    while (this.stoppers.length > 0) {
      const stop = this.stoppers.pop()!;
      try {
        await stop();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'demo part did not stop cleanly');
      }
    }
  }

  /**
   * Takes the demo's own lock on its data directory before anything in it is opened or written:
   * a second demo on the same directory would otherwise rewrite the running one's agent.yaml and
   * tokens (pairing, reader port, printer URI) before its agent fails on the agent's lock.
   */
  private async lockDataDir(dataDir: string): Promise<void> {
    try {
      const lock = await acquireDataDirLock(dataDir);
      this.stoppers.push(() => lock.release());
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      throw new CliError(
        `another demo (pid ${error.pid}) is using the data directory ${dataDir} (lock file ${error.lockPath}): ` +
          'stop that demo first, or start this one with another --data-dir',
      );
    }
  }

  private async startEmulator(dataDir: string): Promise<string> {
    const { createEmulator } = await import('../emulator/app.js');
    const emulator = await createEmulator({
      db: join(dataDir, 'emulator.db'),
      dataDir: join(dataDir, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger: this.options.logger.child({ part: 'emulator' }),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      ...(this.options.publicUrl ? { publicUrl: this.options.publicUrl } : {}),
      ...(this.options.trustProxy ? { trustProxy: true } : {}),
      outboundAllow: this.options.outboundAllow ?? DEMO_OUTBOUND_ALLOW,
      ...(this.options.corsOrigins ? { corsOrigins: this.options.corsOrigins } : {}),
      ...(this.options.webhooks ? { webhooks: this.options.webhooks } : {}),
      ...(this.options.tls ? { tls: { key: this.options.tls.key, cert: this.options.tls.cert } } : {}),
    });
    this.stoppers.push(() => emulator.close());
    // The demo composes the emulator with its agent in one process: it lends its helpers the
    // parts they use of the emulator's services, as app.ts lends the route modules theirs.
    const { store, printers, pairings } = emulator.app.emulator;
    this.emulatorContext = { store, printers };
    this.approvePairing = (code) => pairings.approvePairing(code, DEMO.admin.email);
    try {
      return (await emulator.listen(this.options.host, this.options.port)).replace(/\/+$/, '');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new CliError(
          `port ${this.options.port} on ${this.options.host} is already in use: stop what uses it or start the demo on another port with --port N`,
        );
      }
      throw error;
    }
  }

  /**
   * Pairs the demo agent as a real site would (`printrelay agent pair`), approving the code
   * in-process as the demo admin instead of a person signing in; the tokens land in the agent's
   * data directory and the agent runs without username or password.
   */
  private async pairAgent(config: AgentConfig, agentDir: string, signal?: AbortSignal): Promise<void> {
    const approve = this.approvePairing;
    if (!approve) throw new Error('the demo emulator must run before the agent is paired');
    const { pairConnector } = await import('../client/pairing-client.js');
    const { tokensPath } = await import('../client/token-store.js');
    const { url, client_id, client_secret } = config.cloud;
    const ca = this.options.tls?.cert;
    await pairConnector({
      settings: { authUrl: url, clientId: client_id, clientSecret: client_secret, ...(ca ? { ca } : {}) },
      tokensFile: tokensPath(agentDir),
      clock: this.options.clock ?? systemClock,
      logger: this.options.logger.child({ part: 'agent' }),
      onCode: (code) => approve(code.pairing_code),
      ...(signal ? { signal } : {}),
    });
  }

  private async startPrinter(outputDir: string): Promise<string> {
    const { VirtualPrinter } = await import('../printing/virtual/virtual-printer.js');
    const printer = new VirtualPrinter({
      name: DEMO.printer.name,
      outputDir,
      logger: this.options.logger.child({ printer: DEMO.printer.name }),
      host: '127.0.0.1',
      port: 0,
    });
    this.stoppers.push(() => printer.stop());
    return (await printer.start()).uri;
  }

  private async startAgent(config: AgentConfig, dataDir: string, signal?: AbortSignal) {
    const { Agent } = await import('../agent/agent.js');
    const { ConsoleReleaseUi } = await import('../agent/release/release-ui.js');
    const output = this.options.releaseOutput ?? process.stdout;
    const agent = new Agent({
      config,
      dataDir,
      logger: this.options.logger.child({ part: 'agent' }),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      ...(this.options.redactor ? { redactor: this.options.redactor } : {}),
      release: { ui: () => new ConsoleReleaseUi(process.stdin, output) },
    });
    this.stoppers.push(() => agent.stop());
    await agent.start(signal);
    return agent;
  }
}

/** The banner's view of the agent's control API: its URL, or why it does not listen. */
function controlInfo(
  agent: { controlUrl(): string | undefined; status(): AgentStatus | undefined },
  configFile: string,
): DemoControlInfo {
  const url = agent.controlUrl();
  if (url) return { url, configFile };
  const problem = agent.status()?.lastErrors.findLast((e) => e.part === 'control')?.message;
  return { configFile, problem: problem ?? 'the control API is not listening' };
}

/** A port on 127.0.0.1 free right now: one reader and one control API per demo. */
async function freeLoopbackPort(): Promise<number> {
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  return port;
}

/** The banner's view of the demo station (the first configured one). */
function releaseInfo(stations: StationStatus[]): DemoReleaseInfo | undefined {
  const station = stations[0];
  if (!station) return undefined;
  const info: DemoReleaseInfo = {
    reader: station.reader,
    printer: station.printer,
    queue: DEMO_QUEUE_PRINTER,
    running: station.state === 'running',
  };
  if (station.problem) info.problem = station.problem;
  return info;
}
