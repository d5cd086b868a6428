/**
 * A rig for printer sync tests and the sync benchmark: the real emulator (in-memory database,
 * demo seed, every served request counted from its own log), a connector registered with it
 * over the real ChannelClient (every write request it sends recorded with its JSON body), an
 * agent database, and a factory for PrinterSync instances with a
 * ManualClock (grace periods pass in ms). Also a discovery source whose answer the test sets
 * (the stand-in for a LAN or spooler). close() stops what the rig started.
 */
import { demoSession } from './demo-session.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrinterSync } from '../../src/agent/printer-sync/printer-sync.js';
import { PrinterSyncClient } from '../../src/agent/printer-sync/printer-sync-client.js';
import type { PrinterSyncRecord } from '../../src/agent/printer-sync/sync-types.js';
import { ChannelClient } from '../../src/client/channel-client.js';
import type { HttpClient, HttpRequest } from '../../src/client/http-base.js';
import type { AgentConfig, AgentPrinterConfig } from '../../src/config/agent-schema.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { ManualClock } from '../../src/lib/clock.js';
import { type Logger, silentLogger } from '../../src/log/logger.js';
import { type BackendRegistry, defaultBackendRegistry } from '../../src/printing/backend-registry.js';
import type {
  DiscoveredPrinter,
  DiscoveryResult,
  PrinterDiscoverer,
} from '../../src/printing/discovery/discovery.js';
import { type AgentDatabase, openAgentDatabase } from '../../src/store/agent-db.js';
import { SyncStateStore } from '../../src/store/sync-state-store.js';
import { emulatorRequestCounter, type RequestCounter } from './emulator-requests.js';

/** A discovery source answering what the test last set (or failing when told to). */
export class SettableDiscoverer implements PrinterDiscoverer {
  private answer: DiscoveryResult;

  constructor(readonly source: string) {
    this.answer = { source, ok: true, printers: [] };
  }

  /** The printers the next discover() returns. */
  set(printers: { name: string; uri: string }[]): void {
    const list: DiscoveredPrinter[] = printers.map((p) => ({ ...p, source: this.source }));
    this.answer = { source: this.source, ok: true, printers: list };
  }

  /** Makes the next discover() fail with `error`. */
  fail(error: string): void {
    this.answer = { source: this.source, ok: false, error };
  }

  async discover(): Promise<DiscoveryResult> {
    return this.answer;
  }
}

/** A write request the agent sent, as its HttpClient was given it. */
export interface SentRequest {
  method: string;
  path: string;
  /** The JSON body (undefined when none). */
  body: unknown;
}

/** The write requests (POST, PUT, PATCH, DELETE) an HttpClient sent since the last reset(). */
export interface SentLog {
  writes(): SentRequest[];
  reset(): void;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Records what `http` sends through json() from now on (the channel and sync clients use only that). */
function recordWrites(http: HttpClient): SentLog {
  let sent: SentRequest[] = [];
  const json = http.json.bind(http);
  http.json = <T>(req: HttpRequest & { json?: unknown }): Promise<T> => {
    if (WRITE_METHODS.has(req.method)) sent.push({ method: req.method, path: req.path, body: req.json });
    return json<T>(req);
  };
  return {
    writes: () => [...sent],
    reset: () => {
      sent = [];
    },
  };
}

/** What a PrinterSync of the rig is built with. */
export interface RigSyncOptions {
  printers?: AgentPrinterConfig[];
  discoverers?: PrinterDiscoverer[];
  sync?: Partial<AgentConfig['sync']>;
  discovery?: Partial<AgentConfig['discovery']>;
  logger?: Logger;
  /** Backends by scheme (default: the agent's default registry). */
  registry?: BackendRegistry;
}

export interface SyncRig {
  url: string;
  emulator: Emulator;
  counter: RequestCounter;
  /** What the agent's clients sent (bodies included); the emulator's side is `counter`. */
  sent: SentLog;
  http: HttpClient;
  channel: ChannelClient;
  client: PrinterSyncClient;
  connectorId: string;
  db: AgentDatabase;
  store: SyncStateStore<PrinterSyncRecord>;
  clock: ManualClock;
  dir: string;
  makeSync(options: RigSyncOptions): PrinterSync;
  close(): Promise<void>;
}

/** Starts the emulator and registers a connector; the caller calls close(). */
export async function startSyncRig(serial = 'sync-rig-connector'): Promise<SyncRig> {
  const dir = mkdtempSync(join(tmpdir(), 'sync-rig-'));
  const counter = emulatorRequestCounter();
  const emulator = await createEmulator({
    db: ':memory:',
    dataDir: join(dir, 'emulator'),
    seed: defaultEmulatorSeed(),
    logger: counter.logger,
  });
  const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
  const { http } = await demoSession(url, DEMO.admin, 'printing printing.connectors', 30_000);
  const sent = recordWrites(http);
  const channel = new ChannelClient(http);
  const connector = await channel.register({
    serial_string: serial,
    type: 'Printserver',
    readable_name: `Sync rig ${serial}`,
    hostname: 'sync-rig',
    internal_ip: '127.0.0.1',
    external_ip: null,
    os_type: 'Linux',
    sw_version: '0.1.0',
    supported_formats: 'RAW,PDF',
  });
  const db = openAgentDatabase(':memory:');
  const clock = new ManualClock(Date.now());
  const store = new SyncStateStore<PrinterSyncRecord>(db, clock);
  const client = new PrinterSyncClient(http);
  const syncs: PrinterSync[] = [];
  return {
    url,
    emulator,
    counter,
    sent,
    http,
    channel,
    client,
    connectorId: connector.id,
    db,
    store,
    clock,
    dir,
    makeSync(options) {
      const sync = new PrinterSync({
        config: {
          printers: options.printers ?? [],
          discovery: {
            cups: false,
            winspool: false,
            dnssd: false,
            interval_s: 10,
            allow: [],
            deny: [],
            ...options.discovery,
          },
          sync: { interval_s: 3600, grace_period_h: 24, max_delete_share: 0.25, ...options.sync },
        },
        connectorId: () => connector.id,
        channel,
        client,
        store,
        registry: options.registry ?? defaultBackendRegistry(),
        discoverers: options.discoverers ?? [],
        dataDir: join(dir, 'agent'),
        clock,
        logger: options.logger ?? silentLogger(),
      });
      syncs.push(sync);
      return sync;
    },
    async close() {
      for (const sync of syncs) await sync.stop();
      await http.close();
      db.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
