/**
 * The agent's lifecycle. Constructors only assign; start(signal) brings the parts up in order —
 * store, tokens and cloud client, connector registration, printers, outbox delivery, job loop,
 * job feed, copy-job accounting, release stations — checking the signal between phases; stop() takes them down in reverse, letting
 * in-flight jobs finish their Print-Job and leaving the rest resumable in the ledger.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChannelClient as ChannelClientType } from '../client/channel-client.js';
import { ChannelClient } from '../client/channel-client.js';
import { HttpClient } from '../client/http-base.js';
import { fetchPasswordToken, type OAuthClientSettings, refreshToken } from '../client/oauth-client.js';
import { readCaFile } from '../client/cloud-trust.js';
import { CONNECTOR_TOKEN_SCOPE } from '../client/pairing-client.js';
import type { TokenSource } from '../client/http-base.js';
import { type TokenGrants, TokenStore } from '../client/token-store.js';
import type { AgentConfig } from '../config/agent-schema.js';
import { type ConfigChanges, configChanges } from '../config/config-changes.js';
import { throwIfAborted } from '../lib/abort.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { errorMessage } from '../lib/errors.js';
import { packageVersion } from '../lib/package-version.js';
import type { Logger } from '../log/logger.js';
import { Redactor } from '../log/redaction.js';
import { type BackendRegistry, defaultBackendRegistry } from '../printing/backend-registry.js';
import { FINAL_EVENT_KINDS } from '../protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../store/agent-db.js';
import { acquireDataDirLock, type DataDirLock } from '../store/data-dir-lock.js';
import { IdentityStore } from '../store/identity-store.js';
import { JobLedger } from '../store/job-ledger.js';
import type { LocalJobRecord } from '../store/local-job-store.js';
import { type NewJobEvent, Outbox, type OutboxStats } from '../store/outbox.js';
import { SyncStateStore } from '../store/sync-state-store.js';
import { readHostFacts } from './connector/identity.js';
import { JobFeed } from './connector/job-feed.js';
import { JobLoop } from './connector/job-loop.js';
import { claimingDownload } from './connector/claiming-download.js';
import { JobRunner } from './connector/job-runner.js';
import { OutboxSender } from './connector/outbox-sender.js';
import { CopyJobs, type CopyJobsDeps } from './copyjobs/copy-jobs.js';
import { PrinterSync } from './connector/printer-sync.js';
import { PrinterSyncClient } from './connector/printer-sync-client.js';
import { syncDiscoverers } from './connector/printer-sync-discovery.js';
import { type RegisteredPrinter, Registration } from './connector/registration.js';
import { retryUntilReachable } from './connector/startup-retry.js';
import { TicketOverrides } from './connector/ticket-overrides.js';
import type { PrinterSyncRecord } from './connector/sync-types.js';
import { AgentControl } from './control/agent-control.js';
import {
  countedGrants,
  jobEventWatcher,
  observedTokens,
  syncRunWatcher,
} from './control/agent-instruments.js';
import type { AgentStatus } from './control/agent-status.js';
import { ReleaseStations, type ReleaseStationsDeps, type StationStatus } from './release/release-stations.js';
import { absentServiceManager, type ServiceNotifier, startHeartbeat } from '../service/service-notifier.js';

/** What the agent is built from; the caller owns the logger. */
export interface AgentDeps {
  config: AgentConfig;
  dataDir: string;
  logger: Logger;
  clock?: Clock;
  backends?: BackendRegistry;
  /** The logger's redactor: release stations register passwords and card numbers with it. */
  redactor?: Redactor;
  /** Release-station parts besides the config (terminal UI, reader overrides, session hook). */
  release?: Pick<ReleaseStationsDeps, 'ui' | 'readerOverrides' | 'onSessionEnd' | 'profiles' | 'retry'>;
  /** The service manager (systemd) told about readiness, status and the watchdog; default none. */
  notifier?: ServiceNotifier;
  /** Keep retrying an unreachable cloud at start-up instead of failing; default false. */
  retryStartup?: boolean;
  /** Called with every copy session that recorded copies (tests, status pages). */
  onCopyRecorded?: CopyJobsDeps['onRecorded'];
}

/** The parts that exist while the agent runs. */
interface Running {
  /** One agent per data directory (released last). */
  lock: DataDirLock;
  db: AgentDatabase;
  control: AgentControl;
  tokens: TokenStore;
  http: HttpClient;
  identity: IdentityStore;
  ledger: JobLedger;
  outbox: Outbox;
  sender: OutboxSender;
  registration: Registration;
  connectorId: string;
  printers: Map<string, RegisteredPrinter>;
  loop?: JobLoop;
  feed?: JobFeed;
  /** Keeps the cloud's printers true (configured + discovered); feeds `printers`. */
  sync?: PrinterSync;
  /** Admin overrides for tickets: the job runner calls `overrides.apply(printerId, ticket)` before submit. */
  overrides?: TicketOverrides;
  stations?: ReleaseStations;
  copies?: CopyJobs;
}

/** The pairing asks for the same scopes (client/pairing-client.ts). */
const TOKEN_SCOPE = CONNECTOR_TOKEN_SCOPE;

/** The connector daemon; start() once, stop() once. */
export class Agent {
  private running: Running | undefined;
  /** The parts while start() brings them up (the control API answers during start-up). */
  private starting: (Partial<Running> & Pick<Running, 'db' | 'lock' | 'control'>) | undefined;
  private readonly clock: Clock;
  /** The PEM of cloud.ca_file, read at start (undefined: the system roots only). */
  private caPem: string | undefined;
  private readonly notifier: ServiceNotifier;

  constructor(private readonly deps: AgentDeps) {
    this.clock = deps.clock ?? systemClock;
    this.notifier = deps.notifier ?? absentServiceManager;
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
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const lock = await acquireDataDirLock(dataDir);
    let db: AgentDatabase;
    try {
      db = openAgentDatabase(join(dataDir, 'agent.db'));
    } catch (error) {
      await lock.release();
      throw error;
    }
    const partial: Partial<Running> & Pick<Running, 'db' | 'lock' | 'control'> = {
      db,
      lock,
      printers: new Map(),
      control: this.makeControl(() => partial),
    };
    this.starting = partial;
    const stopStartupHeartbeat = startHeartbeat(this.notifier);
    try {
      await this.startControl(partial.control);
      await this.bringUp(partial, signal);
    } catch (error) {
      await this.tearDown(partial);
      throw error;
    } finally {
      stopStartupHeartbeat();
      this.starting = undefined;
    }
    const printers = partial.printers?.size ?? 0;
    this.notifier.ready(`connected as connector ${partial.connectorId}; ${printers} printer(s) registered`);
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
      await r.stations?.reconfigure(next.release_stations);
    }
    return changes;
  }

  /** Drains and stops every part in reverse order. Safe to call when not started. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.notifier.stopping('stopping: finishing in-flight jobs');
    if (!running) return;
    await this.tearDown(running);
    this.deps.logger.info('agent stopped');
  }

  private async bringUp(
    r: Partial<Running> & Pick<Running, 'db' | 'lock' | 'control'>,
    signal?: AbortSignal,
  ): Promise<void> {
    const { config, logger, dataDir } = this.deps;
    const ca = this.cloudCa();
    r.identity = new IdentityStore(r.db, this.clock);
    r.ledger = new JobLedger(r.db, this.clock);
    r.outbox = new Outbox(r.db, this.clock, this.backoff());
    r.tokens = new TokenStore({
      path: join(dataDir, 'tokens.json'),
      grants: countedGrants(this.grants(), r.control.metrics),
      clock: this.clock,
      logger,
    });
    const tokens = observedTokens(r.tokens, r.control);
    const contact = r.control.cloud;
    r.http = new HttpClient({
      baseUrl: config.cloud.url,
      timeoutMs: config.cloud.request_timeout_s * 1000,
      tokens,
      ...(ca ? { ca } : {}),
      onContact: (ok, problem) =>
        ok ? contact.ok(this.clock.now()) : contact.failed(this.clock.now(), problem ?? 'no answer'),
    });
    const channel = new ChannelClient(r.http);
    r.registration = new Registration({ config, channel, identity: r.identity, logger });
    throwIfAborted(signal);
    const facts = await readHostFacts();
    const registration = r.registration;
    r.connectorId = await retryUntilReachable(
      (s) => registration.registerConnector(facts, packageVersion(), s),
      {
        retry: this.deps.retryStartup ?? false,
        backoff: this.backoff(),
        notifier: this.notifier,
        logger,
        signal,
      },
    );
    throwIfAborted(signal);
    await this.startSync(r as Running, channel, signal);
    throwIfAborted(signal);
    const outbox = r.outbox;
    r.sender = new OutboxSender(outbox, (items, s) => channel.postEvents(items, s), this.clock, logger);
    r.sender.start();
    r.loop = this.makeLoop(r as Running, channel);
    r.loop.start();
    throwIfAborted(signal);
    r.feed = this.makeFeed(r as Running, channel, tokens);
    r.feed.start();
    r.copies = new CopyJobs({
      config,
      db: r.db,
      outbox: r.outbox,
      clock: this.clock,
      logger,
      ...(this.deps.onCopyRecorded ? { onRecorded: this.deps.onCopyRecorded } : {}),
      ...(this.deps.redactor ? { redactor: this.deps.redactor } : {}),
      ...(ca ? { cloudCa: ca } : {}),
    });
    await r.copies.start();
    r.stations = this.makeStations(r.control, r.copies);
    await r.stations.start();
    this.running = r as Running;
  }

  /** Release stations never fail the agent: their start() logs and retries on its own. */
  private makeStations(control: AgentControl, copies: CopyJobs): ReleaseStations {
    const { config, logger, release } = this.deps;
    return new ReleaseStations({
      ...release,
      onSwipe: (station, outcome) => control.swipe(station, outcome),
      configs: config.release_stations,
      copies: (station, stationLogger, ui) => copies.stationCopies(station, stationLogger, ui),
      logger: logger.child({ part: 'release' }),
      clock: this.clock,
      redactor: this.deps.redactor ?? new Redactor(),
      ...(this.caPem ? { cloudCa: this.caPem } : {}),
    });
  }

  /** The printer sync: its first run registers the printers (configured and discovered). */
  private async startSync(r: Running, channel: ChannelClientType, signal?: AbortSignal): Promise<void> {
    const { config, logger, dataDir } = this.deps;
    const client = new PrinterSyncClient(r.http);
    r.overrides = new TicketOverrides({ client, clock: this.clock, logger });
    r.sync = new PrinterSync({
      config,
      connectorId: () => r.connectorId,
      channel,
      client,
      store: new SyncStateStore<PrinterSyncRecord>(r.db, this.clock),
      registry: this.deps.backends ?? defaultBackendRegistry(),
      discoverers: syncDiscoverers(config.discovery, logger.child({ part: 'discovery' })),
      dataDir,
      clock: this.clock,
      logger: logger.child({ part: 'printer-sync' }),
      onPrinters: (list) => {
        r.printers.clear();
        for (const p of list) r.printers.set(p.config.name, p);
      },
      onCapabilitiesChanged: (ids) => r.overrides?.invalidate(ids),
      onRun: syncRunWatcher(r.control),
    });
    await r.sync.start(signal);
  }

  private makeLoop(r: Running, channel: ChannelClientType): JobLoop {
    const { logger, config, dataDir } = this.deps;
    const watch = jobEventWatcher({
      ledger: r.ledger,
      control: r.control,
      printerName: (cloudId) =>
        [...r.printers.values()].find((p) => p.cloudId === cloudId)?.config.name ?? cloudId,
      clock: this.clock,
    });
    const emit = (jobId: string, event: NewJobEvent) => {
      watch(jobId, event);
      r.outbox.add(jobId, event);
      r.sender.notify({ urgent: FINAL_EVENT_KINDS.has(event.kind) });
    };
    const runner = new JobRunner({
      ledger: r.ledger,
      emit,
      download: async (offer, target, s) => {
        await claimingDownload(channel, offer, target, s);
        r.control.metrics.downloaded(offer.document.size);
      },
      discardEvents: (jobId) => r.outbox.discardJob(jobId),
      adjustTicket: (printerId, ticket) =>
        r.overrides ? r.overrides.apply(printerId, ticket) : Promise.resolve({ ticket, warnings: [] }),
      jobs: config.jobs,
      spoolDir: join(dataDir, 'spool'),
      clock: this.clock,
      logger,
    });
    const byCloudId = () => new Map([...r.printers.values()].map((p) => [p.cloudId, p.backend]));
    return new JobLoop({
      ledger: r.ledger,
      runner,
      emit,
      backendFor: (printerId) => byCloudId().get(printerId),
      spoolDir: join(dataDir, 'spool'),
      logger,
      notifier: this.notifier,
    });
  }

  private makeFeed(r: Running, channel: ChannelClientType, tokens: TokenSource): JobFeed {
    const { config, logger } = this.deps;
    return new JobFeed({
      mode: config.cloud.channel,
      baseUrl: config.cloud.url,
      channel,
      tokens,
      pollWaitS: config.cloud.poll_interval_s,
      backoff: this.backoff(),
      logger,
      onOffer: (offer) => r.loop?.offer(offer) ?? false,
      // Poll answers repeat pending jobs until their `received` (which claims them) arrives.
      onPolledOffers: () => r.sender.notify({ urgent: true }),
      onCancel: (jobId) => r.loop?.cancel(jobId),
      onUnknownConnector: () => void this.reRegister(r),
      ...(this.caPem ? { ca: this.caPem } : {}),
    });
  }

  private async reRegister(r: Running): Promise<void> {
    this.deps.logger.warn('the cloud no longer knows this connector; registering again');
    r.identity.forgetCloudIds();
    try {
      r.connectorId = await r.registration.registerConnector(await readHostFacts(), packageVersion());
      new SyncStateStore<PrinterSyncRecord>(r.db, this.clock).forgetCloudIds();
      await r.sync?.runNow(undefined, true);
    } catch (error) {
      this.deps.logger.error({ error: errorMessage(error) }, 're-registration failed');
    }
  }

  private async tearDown(r: Partial<Running> & Pick<Running, 'db' | 'lock' | 'control'>): Promise<void> {
    await r.stations?.stop();
    // Undelivered copy-job operations stay in the outbox for the next start.
    await r.copies?.stop();
    await r.feed?.stop();
    await r.loop?.stop();
    if (r.sender) {
      await r.sender.flush(AbortSignal.timeout(5000)).catch(() => 0);
      await r.sender.stop();
    }
    await r.sync?.stop();
    for (const printer of r.printers?.values() ?? []) await printer.backend.close().catch(() => {});
    await r.http?.close();
    await r.control.stop();
    r.db.close();
    await r.lock.release();
  }

  /** The control API and metrics over a view of the parts (read when asked, so it follows start-up). */
  private makeControl(parts: () => Partial<Running>): AgentControl {
    const { config, logger, redactor } = this.deps;
    return new AgentControl(
      {
        config: config.control,
        cloudUrl: config.cloud.url,
        channel: config.cloud.channel,
        version: packageVersion(),
        clock: this.clock,
        logger: logger.child({ part: 'control' }),
        scrub: (text) => (redactor ? redactor.scrubString(text) : text),
      },
      {
        connectorId: () => parts().connectorId,
        channelConnected: () => parts().feed?.connected ?? false,
        printers: () => [...(parts().printers?.values() ?? [])],
        unfinishedJobs: () => parts().ledger?.unfinished() ?? [],
        outbox: () => parts().outbox?.stats() ?? { depth: 0, oldestCreatedAt: undefined },
        stations: () => parts().stations?.status() ?? [],
        tokenExpiresAt: () => parts().tokens?.current()?.access_expires_at,
      },
    );
  }

  /** A control port that cannot be bound is logged, never fatal: printing matters more than status. */
  private async startControl(control: AgentControl): Promise<void> {
    try {
      await control.start();
    } catch (error) {
      const { bind, port } = this.deps.config.control;
      const message = `control API not started on ${bind}:${port}: ${errorMessage(error)}`;
      this.deps.logger.error({ bind, port }, message);
      control.error('control', message);
    }
  }

  /** The PEM of cloud.ca_file, read at every start; a PermanentError naming the field when unreadable. */
  private cloudCa(): string | undefined {
    const file = this.deps.config.cloud.ca_file;
    this.caPem = file ? readCaFile(file, 'cloud.ca_file') : undefined;
    return this.caPem;
  }

  private grants(): TokenGrants {
    const { cloud } = this.deps.config;
    const settings: OAuthClientSettings = {
      authUrl: cloud.url,
      clientId: cloud.client_id,
      clientSecret: cloud.client_secret,
      timeoutMs: cloud.request_timeout_s * 1000,
      ...(this.caPem ? { ca: this.caPem } : {}),
    };
    const { username, password } = cloud;
    return {
      refresh: (token, retryKey) => refreshToken(settings, token, TOKEN_SCOPE, retryKey),
      password:
        username && password
          ? () => fetchPasswordToken(settings, username, password, TOKEN_SCOPE)
          : undefined,
    };
  }

  private backoff(): BackoffPolicy {
    const { jobs } = this.deps.config;
    return { initialMs: jobs.retry_initial_ms, maxMs: jobs.retry_max_ms, factor: 2, jitter: 0.5 };
  }
}
