/**
 * The agent's lifecycle. Constructors only assign; start(signal) brings the parts up in order
 * (bring-up.ts) — store, tokens and cloud client, connector registration, printers, outbox
 * delivery, job loop, job feed, copy-job accounting, release stations — checking the signal
 * between phases; stop() takes them down in reverse, letting in-flight jobs finish their
 * Print-Job and leaving the rest resumable in the ledger. The parts are typed in agent-parts.ts.
 */
import { join } from 'node:path';
import type { AgentConfig } from '../config/agent-schema.js';
import { type ConfigChanges, configChanges } from '../config/config-changes.js';
import { systemClock } from '../lib/clock.js';
import { errorMessage } from '../lib/errors.js';
import { absentServiceManager, startHeartbeat } from '../service/service-notifier.js';
import { type AgentDatabase, openAgentDatabase } from '../store/agent-db.js';
import { acquireDataDirLock, type ControlNote } from '../store/data-dir-lock.js';
import type { LocalJobRecord } from '../store/local-job-store.js';
import type { OutboxStats } from '../store/outbox.js';
import type { AgentContext, AgentDeps, Running, StartingParts } from './agent-parts.js';
import { bringUp, startReleaseStations, tearDown } from './bring-up.js';
import { caFileChange } from './cloud-access.js';
import type { RegisteredPrinter } from './connector/registration.js';
import { agentControl, startControl } from './control-view.js';
import type { AgentStatus } from './control/agent-status.js';
import type { StationStatus } from './release/release-stations.js';
import { ensurePrivateDir, makePrivateDir } from '../lib/private-paths.js';

export type { AgentDeps } from './agent-parts.js';

/** The connector daemon; start() once, stop() once. */
export class Agent {
  private running: Running | undefined;
  /** The parts while start() brings them up (the control API answers during start-up). */
  private starting: StartingParts | undefined;
  private readonly ctx: AgentContext;

  constructor(private readonly deps: AgentDeps) {
    this.ctx = {
      deps,
      clock: deps.clock ?? systemClock,
      notifier: deps.notifier ?? absentServiceManager,
      caPem: undefined,
    };
  }

  /** The connector id after start(). */
  get connectorId(): string | undefined {
    return this.running?.connectorId;
  }

  /** Whether the channel WebSocket is connected (false in poll mode or while it is down). */
  get channelConnected(): boolean {
    return this.running?.feed?.connected ?? false;
  }

  /** Registered printers after start(), by config name. */
  printers(): RegisteredPrinter[] {
    return [...(this.running?.printers.values() ?? [])];
  }

  /**
   * The outbox: undelivered records (job events and copy-job operations) with the oldest age and
   * the last delivery error, in all and per kind; undefined before start(). For `printrelay status`.
   */
  outboxStats(): OutboxStats | undefined {
    return this.running?.outbox.stats();
  }

  /** Copy jobs recorded at this agent's release stations, newest first (empty before start()). */
  copyJobs(options: { userId?: string; limit?: number } = {}): LocalJobRecord[] {
    return this.running?.copies?.recent(options) ?? [];
  }

  /** Base URL of the copy-events endpoint for device apps (undefined without `copy_events`). */
  get copyEventsUrl(): string | undefined {
    return this.running?.copies?.eventsUrl;
  }

  /** Why printers are not registered or not up to date after the last printer sync. */
  printerProblems(): string[] {
    return this.running?.sync?.problems().map((p) => p.error) ?? [];
  }

  /** The configured release stations and their state (empty before start()). */
  releaseStations(): StationStatus[] {
    return this.running?.stations?.status() ?? [];
  }

  /** What the agent is doing now (the control API's /status); undefined before start(). */
  status(): AgentStatus | undefined {
    return (this.running ?? this.starting)?.control.status();
  }

  /** The control API's base URL while it listens. */
  controlUrl(): string | undefined {
    return (this.running ?? this.starting)?.control.url();
  }

  /** Brings every part up in order; throws (after cleaning up) if the signal aborts between phases. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new Error('agent already started');
    const { dataDir, logger } = this.deps;
    ensurePrivateDir(dataDir);
    // the spool holds the documents: made private here, before the job loop uses it
    makePrivateDir(join(dataDir, 'spool'));
    const lock = await acquireDataDirLock(dataDir);
    let db: AgentDatabase;
    try {
      db = openAgentDatabase(join(dataDir, 'agent.db'), { profile: this.deps.statementProfile });
    } catch (error) {
      await lock.release();
      throw error;
    }
    const partial: StartingParts = {
      db,
      lock,
      printers: new Map(),
      control: agentControl(this.ctx, () => partial),
    };
    this.starting = partial;
    const stopStartupHeartbeat = startHeartbeat(this.ctx.notifier);
    let controlNote: ControlNote | undefined;
    try {
      controlNote = await startControl(this.ctx, partial.control);
      if (controlNote) await lock.noteControl(controlNote);
      this.running = await bringUp(this.ctx, partial, signal);
    } catch (error) {
      await tearDown(partial);
      throw error;
    } finally {
      stopStartupHeartbeat();
      this.starting = undefined;
    }
    const printers = partial.printers?.size ?? 0;
    const controlProblem = controlNote?.error ? `; ${controlNote.error}` : '';
    this.ctx.notifier.ready(
      `connected as connector ${partial.connectorId}; ${printers} printer(s) registered${controlProblem}`,
    );
    logger.info({ connector: partial.connectorId, printers }, 'agent started');
  }

  /**
   * Applies a reloaded configuration (SIGHUP): the printers (a sync registers the change now),
   * the release stations and the log level. Jobs in flight keep running; other sections are
   * reported in `needRestart`. Returns what changed.
   */
  async reload(next: AgentConfig): Promise<ConfigChanges> {
    const r = this.running;
    if (!r) throw new Error('the agent is not running');
    const { config, logger } = this.deps;
    const changes = configChanges(config, next);
    // The same ca_file path with another CA in it is no change of the configuration itself.
    const ca = changes.needRestart.includes('cloud') ? undefined : caFileChange(next, this.ctx.caPem);
    if (ca) changes.needRestart.push(ca);
    this.deps.config = {
      ...config,
      printers: next.printers,
      release_stations: next.release_stations,
      log: next.log,
    };
    if (changes.logLevel) logger.level = next.log.level;
    const { printers, readers } = changes;
    if (printers.added.length + printers.removed.length + printers.changed.length > 0) {
      r.sync?.setPrinters(next.printers);
      await r.sync?.runNow(undefined, true).catch((error: unknown) => {
        logger.warn(
          { error: errorMessage(error) },
          'printer sync after reload failed; retried next interval',
        );
      });
    }
    if (readers.added.length + readers.removed.length + readers.changed.length > 0) {
      if (r.stations) await r.stations.reconfigure(next.release_stations);
      else await startReleaseStations(this.ctx, r);
    }
    return changes;
  }

  /** Drains and stops every part in reverse order. Safe to call when not started. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.ctx.notifier.stopping('stopping: finishing in-flight jobs');
    if (!running) return;
    await tearDown(running);
    this.deps.logger.info('agent stopped');
  }
}
