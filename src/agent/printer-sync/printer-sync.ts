/**
 * The periodic printer sync: configured printers plus discovered ones (CUPS, the Windows
 * spooler, DNS-SD; allow/deny applied), described by their backends, compared with the cloud's
 * printers of this connector and the remembered state (planPrinterSync), and the difference sent
 * (executeSyncPlan): create, PUT, PATCH of changed fields only, the whole properties and blob
 * capability defaults for a new printer and a PATCH of only the changed property fields and
 * capabilities (a hash each) for a known one, Online/Offline, removal after the grace period, never a
 * mass delete or a delete after a failed discovery. start() runs the first sync and the timer;
 * stop() ends the timer, waits for a running sync and closes every backend.
 */
import type { ChannelClient } from '../../client/channel-client.js';
import type { AgentConfig, AgentPrinterConfig } from '../../config/agent-schema.js';
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { BackendRegistry } from '../../printing/backend-registry.js';
import type { PrinterBackend } from '../../printing/printer-backend.js';
import {
  type DiscoveryResult,
  discoverAll,
  type PrinterDiscoverer,
} from '../../printing/discovery/discovery.js';
import type { SyncStateStore } from '../../store/sync-state-store.js';
import type { PrinterSyncClient } from './printer-sync-client.js';
import { BackendPool, describeAll, inventoryOf, wantedPrinters } from './printer-sync-inventory.js';
import type { RegisteredPrinter } from '../connector/registration.js';
import { executeSyncPlan, type FailedSyncCall } from './sync-executor.js';
import { planPrinterSync } from './sync-plan.js';
import type { LocalPrinter, PrinterSyncRecord } from './sync-types.js';

/** What the printer sync is built from; all owned by the caller. */
export interface PrinterSyncDeps {
  config: Pick<AgentConfig, 'printers' | 'discovery' | 'sync'>;
  /** The connector id (it changes when the cloud forgot the connector and it registered again). */
  connectorId: () => string;
  channel: ChannelClient;
  client: PrinterSyncClient;
  store: SyncStateStore<PrinterSyncRecord>;
  registry: BackendRegistry;
  /** The discovery sources the config enables (see syncDiscoverers). */
  discoverers: PrinterDiscoverer[];
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** Called after each run with the printers that are registered now. */
  onPrinters?: (printers: RegisteredPrinter[]) => void;
  /** Called with the cloud ids whose capabilities were uploaded (to drop cached overrides). */
  onCapabilitiesChanged?: (cloudIds: string[]) => void;
  /** Called after each run with its report, or with the error that ended it (metrics, status). */
  onRun?: (outcome: { report: SyncReport } | { error: unknown }) => void;
}

/** What one run did. */
export interface SyncReport {
  printers: number;
  reachable: number;
  discoveryOk: boolean;
  writes: Record<string, number>;
  failed: FailedSyncCall[];
  notes: string[];
  /** Elapsed milliseconds per phase (discover, describe, list, plan, execute), for logs and benchmarks. */
  phasesMs: Record<string, number>;
}

/** Measures the elapsed time of each phase of a run (durations, not time of day). */
class PhaseTimer {
  private readonly spent: Record<string, number> = {};

  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.spent[phase] = Math.round(performance.now() - started);
    }
  }

  result(): Record<string, number> {
    return { ...this.spent };
  }
}

/** Keeps the cloud's printers of this connector true; start() once, stop() once. */
export class PrinterSync {
  private readonly pool: BackendPool;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SyncReport> | undefined;
  private discovered: { at: number; results: DiscoveryResult[] } | undefined;
  private registered: RegisteredPrinter[] = [];
  private failures: FailedSyncCall[] = [];
  private stopped = false;

  constructor(private readonly deps: PrinterSyncDeps) {
    this.pool = new BackendPool(deps.registry, { dataDir: deps.dataDir, logger: deps.logger });
  }

  /** The printers registered after the last run. */
  printers(): RegisteredPrinter[] {
    return [...this.registered];
  }

  /** The calls that failed in the last run (a name clash says how to resolve it). */
  problems(): FailedSyncCall[] {
    return [...this.failures];
  }

  /** Runs the first sync (its failure is thrown) and starts the periodic one. */
  async start(signal?: AbortSignal): Promise<SyncReport> {
    const report = await this.runNow(signal);
    const everyMs = this.deps.config.sync.interval_s * 1000;
    this.timer = setInterval(() => {
      this.runNow().catch((error: unknown) =>
        this.deps.logger.warn({ error: errorMessage(error) }, 'printer sync failed; retried next interval'),
      );
    }, everyMs);
    this.timer.unref?.();
    return report;
  }

  /** Runs a sync now, or joins the one running. `rediscover` forces discovery this run. */
  runNow(signal?: AbortSignal, rediscover = false): Promise<SyncReport> {
    if (this.stopped) return Promise.reject(new Error('printer sync stopped'));
    if (rediscover) this.discovered = undefined;
    if (!this.running) {
      this.running = this.run(signal)
        .then(
          (report) => {
            this.deps.onRun?.({ report });
            return report;
          },
          (error: unknown) => {
            this.deps.onRun?.({ error });
            throw error;
          },
        )
        .finally(() => {
          this.running = undefined;
        });
    }
    return this.running;
  }

  /** Replaces the configured printers (configuration reload); the next run registers the change. */
  setPrinters(printers: AgentConfig['printers']): void {
    this.deps.config = { ...this.deps.config, printers };
  }

  /** Ends the timer, waits for a running sync and closes the backends. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.pool.closeAll();
  }

  private async run(signal?: AbortSignal): Promise<SyncReport> {
    const { deps } = this;
    const connectorId = deps.connectorId();
    const phases = new PhaseTimer();
    const discovered = await phases.time('discover', () => this.discover(signal));
    const wanted = wantedPrinters(deps.config.printers, discovered, deps.logger);
    const local = await phases.time('describe', () =>
      describeAll(wanted, this.pool, deps.logger, { signal }),
    );
    const inventory = inventoryOf(local, discovered);
    const cloud = await phases.time('list', () => deps.client.listPrinters(connectorId, signal));
    const previous = deps.store.load();
    const now = deps.clock.now();
    const plan = await phases.time('plan', async () =>
      planPrinterSync(inventory, cloud, previous, now, {
        connectorId,
        gracePeriodMs: deps.config.sync.grace_period_h * 3_600_000,
        maxDeleteShare: deps.config.sync.max_delete_share,
      }),
    );
    const outcome = await phases.time('execute', () =>
      executeSyncPlan(plan, previous, now, {
        connectorId,
        channel: deps.channel,
        client: deps.client,
        logger: deps.logger,
        signal,
      }),
    );
    deps.store.save(outcome.state);
    this.failures = outcome.failed;
    this.publish(
      outcome.state.printers,
      local,
      wanted.map((w) => w.entry),
    );
    if (outcome.changed.length > 0) deps.onCapabilitiesChanged?.(outcome.changed);
    for (const note of plan.notes) deps.logger.warn({ connector: connectorId }, `printer sync: ${note}`);
    const report: SyncReport = {
      printers: local.length,
      reachable: local.filter((p) => p.reachable).length,
      discoveryOk: inventory.discoveryOk,
      writes: outcome.writes,
      failed: outcome.failed,
      notes: plan.notes,
      phasesMs: phases.result(),
    };
    deps.logger.debug(
      { connector: connectorId, ...report, failed: report.failed.length },
      'printer sync done',
    );
    return report;
  }

  private async discover(signal?: AbortSignal): Promise<DiscoveryResult[]> {
    const { deps } = this;
    if (deps.discoverers.length === 0) return [];
    const now = deps.clock.now();
    const fresh = this.discovered && now - this.discovered.at < deps.config.discovery.interval_s * 1000;
    if (fresh && this.discovered) return this.discovered.results;
    const filter = { allow: deps.config.discovery.allow, deny: deps.config.discovery.deny };
    const results = await discoverAll(deps.discoverers, filter, signal);
    // A failed source is asked again next run rather than trusted for a whole interval.
    if (results.every((r) => r.ok)) this.discovered = { at: now, results };
    return results;
  }

  /** The printer's backend, or undefined when none can be made for its URI (logged at describe). */
  private backendFor(printer: LocalPrinter): PrinterBackend | undefined {
    try {
      return this.pool.get(printer.uri, printer.name);
    } catch {
      return undefined;
    }
  }

  private publish(
    records: { tpId: number; cloudId?: string; uri: string }[],
    local: LocalPrinter[],
    entries: AgentPrinterConfig[],
  ): void {
    const registered: RegisteredPrinter[] = [];
    // present printers come first in the state; a missing record with the same URI must not win
    const recordByUri = new Map<string, { tpId: number; cloudId?: string }>();
    for (const r of records) if (r.cloudId && !recordByUri.has(r.uri)) recordByUri.set(r.uri, r);
    const entryByUri = new Map(entries.map((e) => [e.uri, e]));
    for (const printer of local) {
      const record = recordByUri.get(printer.uri);
      const entry = entryByUri.get(printer.uri);
      const backend = record?.cloudId && entry ? this.backendFor(printer) : undefined;
      if (!record?.cloudId || !entry || !backend) continue;
      registered.push({
        config: entry,
        cloudId: record.cloudId,
        tpId: record.tpId,
        backend,
        online: printer.reachable && printer.state !== 'stopped',
        state: printer.reachable ? printer.state : 'unreachable',
      });
    }
    this.registered = registered;
    void this.pool.closeExcept(new Set(local.map((p) => p.uri)));
    this.deps.onPrinters?.(registered);
  }
}
