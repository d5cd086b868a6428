/**
 * The agent's copy-job accounting as one part: the store of recorded copy jobs (in the agent
 * database, queued in the shared outbox), the sender that delivers them with each station's
 * pull-printing password, a CopyTracker per release station with `copy_jobs` (built through
 * `stationCopies`, which ReleaseStations calls), and the copy-events endpoint when `copy_events`
 * is configured. start() starts the sender and the endpoint; stop() ends them and closes the
 * delivery clients. The database and the outbox belong to the agent.
 */
import { TpfmClient } from '../../client/tpfm-client.js';
import type { AgentConfig } from '../../config/agent-schema.js';
import type { CopyJobsConfig } from '../../config/copy-jobs-schema.js';
import type { ReleaseStationConfig } from '../../config/release-station-schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { Redactor } from '../../log/redaction.js';
import type { AgentDatabase } from '../../store/agent-db.js';
import { type LocalJobRecord, LocalJobStore } from '../../store/local-job-store.js';
import type { Outbox } from '../../store/outbox.js';
import { CopyEventCounter } from './copy-events.js';
import { CopyEventsEndpoint } from './copy-events-endpoint.js';
import type { CopyOutcome } from './copy-session.js';
import { CopyTracker, type CopyUi } from './copy-tracker.js';
import type { CounterSource } from './counter-source.js';
import { IppCounterSource } from './ipp-counters.js';
import { LocalJobSender } from './local-job-sender.js';
import { tpfmLocalJobTransport } from './local-job-transport.js';
import { SnmpCounterSource } from './snmp-counters.js';

/** What the part is built from. */
export interface CopyJobsDeps {
  config: AgentConfig;
  db: AgentDatabase;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  /** Called with every session that recorded copies. */
  onRecorded?: (station: string, outcome: CopyOutcome) => void;
  /** The logger's redactor: SNMP communities and keys are registered with it. */
  redactor?: Redactor;
  /** PEM of a CA to trust for the pull service besides the system roots (cloud.ca_file). */
  cloudCa?: string;
}

/** See the file comment. */
export class CopyJobs {
  readonly store: LocalJobStore;
  private readonly sender: LocalJobSender;
  private readonly clients = new Map<string, TpfmClient>();
  private readonly trackers = new Map<string, CopyTracker>();
  private endpoint: CopyEventsEndpoint | undefined;
  private endpointUrl: string | undefined;

  constructor(private readonly deps: CopyJobsDeps) {
    this.store = new LocalJobStore(deps.db, deps.outbox, deps.clock);
    this.sender = new LocalJobSender({
      db: deps.db,
      outbox: deps.outbox,
      store: this.store,
      transport: tpfmLocalJobTransport((station) => this.clientOf(station)),
      clock: deps.clock,
      logger: deps.logger.child({ part: 'copy-jobs' }),
    });
  }

  /** The copy-events endpoint's base URL once started (undefined without `copy_events`). */
  get eventsUrl(): string | undefined {
    return this.endpointUrl;
  }

  /**
   * Ends the sessions an earlier run left open (the agent stopped or crashed during them: their
   * pages up to then are the copies, Succeeded), then starts delivery (records kept from earlier
   * runs go first) and the endpoint.
   */
  async start(): Promise<void> {
    for (const recordId of this.store.unfinished()) {
      this.store.finish(recordId, 'Succeeded', {});
      this.deps.logger.warn(
        { record: recordId },
        'copy session of an earlier run ended with the pages it had seen',
      );
    }
    this.sender.start();
    const events = this.deps.config.copy_events;
    if (!events) return;
    this.endpoint = new CopyEventsEndpoint({
      host: events.host,
      port: events.port,
      maxFailures: events.max_failures,
      lockoutMs: events.lockout_s * 1000,
      station: (name) => {
        const tracker = this.trackers.get(name);
        const config = this.stationConfig(name);
        return tracker && config
          ? { secret: config.password, postEvent: (e) => tracker.postEvent(e) }
          : undefined;
      },
      clock: this.deps.clock,
      logger: this.deps.logger.child({ part: 'copy-events' }),
    });
    this.endpointUrl = await this.endpoint.start();
  }

  /** Ends the endpoint and delivery; queued records stay for the next start. */
  async stop(): Promise<void> {
    await this.endpoint?.stop();
    await this.sender.stop();
    for (const client of this.clients.values()) await client.close();
    this.clients.clear();
  }

  /** Sends what is due now (tests, shutdown). */
  flush(): Promise<number> {
    return this.sender.flush();
  }

  /** Recorded copy jobs, newest first; of one user when given. */
  recent(options: { userId?: string; limit?: number } = {}): LocalJobRecord[] {
    return this.store.recent(options);
  }

  /** A station's copy accounting (ReleaseStations calls this); undefined without `copy_jobs`. */
  stationCopies(config: ReleaseStationConfig, logger: Logger, ui: CopyUi): CopyTracker | undefined {
    const copy = config.copy_jobs;
    if (!copy) return undefined;
    this.registerSecrets(copy);
    const sources: CounterSource[] = copy.sources.map((kind) => {
      if (kind === 'snmp' && copy.snmp) return new SnmpCounterSource(copy.snmp);
      if (kind === 'ipp' && copy.ipp_uri) return new IppCounterSource(copy.ipp_uri, logger);
      return new CopyEventCounter();
    });
    const tracker = new CopyTracker({
      station: config.name,
      printer: config.printer,
      sources,
      store: this.store,
      clock: this.deps.clock,
      logger: logger.child({ part: 'copy-jobs' }),
      ui,
      paperId: copy.paper_id,
      pollIntervalMs: copy.poll_interval_s * 1000,
      sessionTimeoutMs: copy.session_timeout_s * 1000,
      onQueued: () => this.sender.notify(),
      onRecorded: (outcome) => this.deps.onRecorded?.(config.name, outcome),
    });
    this.trackers.set(config.name, tracker);
    return tracker;
  }

  /** SNMP secrets never reach a log line (the default community `public` is no secret). */
  private registerSecrets(copy: CopyJobsConfig): void {
    const { snmp } = copy;
    if (!snmp || !this.deps.redactor) return;
    for (const secret of [
      snmp.community === 'public' ? undefined : snmp.community,
      snmp.auth_key,
      snmp.priv_key,
    ]) {
      if (secret) this.deps.redactor.add(secret);
    }
  }

  private stationConfig(name: string): ReleaseStationConfig | undefined {
    return this.deps.config.release_stations.find((s) => s.name === name);
  }

  private clientOf(station: string): TpfmClient | undefined {
    const existing = this.clients.get(station);
    if (existing) return existing;
    const config = this.stationConfig(station);
    if (!config) return undefined;
    const client = new TpfmClient({
      baseUrl: config.pull_url,
      password: config.password,
      userAgent: 'PrintRelay copy accounting',
      lang: config.lang,
      logger: this.deps.logger.child({ part: 'copy-jobs', station }),
      ...(this.deps.cloudCa ? { ca: this.deps.cloudCa } : {}),
    });
    this.clients.set(station, client);
    return client;
  }
}
