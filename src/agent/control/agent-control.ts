/**
 * The agent's operations side in one place: the metrics, the recorders of the last cloud contact,
 * token outcome and errors, the /status document built from a read-only view of the running
 * agent, and the control server. agent.ts makes one per start() and hands its observers to the
 * parts; start() listens (when enabled), stop() closes the server and unregisters the metrics.
 */
import type { AgentControlConfig } from '../../config/agent-schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import type { RegisteredPrinter } from '../connector/registration.js';
import type { StationStatus } from '../release/release-stations.js';
import { AgentMetrics, type SwipeObserver, type SwipeOutcome } from './agent-metrics.js';
import { type AgentStatus, CloudContact, type JobInFlight, RecentErrors } from './agent-status.js';
import { ControlServer } from './control-server.js';

/** What the status reads from the running agent; every call is cheap (memory or one indexed query). */
export interface AgentView {
  connectorId(): string | undefined;
  channelConnected(): boolean;
  printers(): RegisteredPrinter[];
  unfinishedJobs(): LedgerJob[];
  /** Why a job's document could not be fetched again while it waits for its next try (JobLoop.documentWaitReason). */
  documentWaitReason?(jobId: string): string | undefined;
  /** How many jobs wait for their document that way (JobLoop.jobsWaitingForDocument). */
  jobsWaitingForDocument?(): number;
  outbox(): { depth: number; oldestCreatedAt: number | undefined };
  stations(): StationStatus[];
  /** Expiry (epoch ms) of the stored access token, if any. */
  tokenExpiresAt(): number | undefined;
  /** This start's token from the data directory's lock file. */
  instance(): string | undefined;
}

/** Fixed facts about this agent. */
export interface AgentControlSettings {
  config: AgentControlConfig;
  cloudUrl: string;
  /** The agent's data directory (absolute): tells `status` which agent answered. */
  dataDir: string;
  channel: 'websocket' | 'poll';
  version: string;
  clock: Clock;
  logger: Logger;
  /** Scrubs secrets from error texts kept for /status. */
  scrub: (text: string) => string;
}

/** Jobs listed on /status; the count covers all of them. */
const LISTED_JOBS = 50;

/** See the file comment. */
export class AgentControl implements SwipeObserver {
  readonly metrics: AgentMetrics;
  readonly cloud = new CloudContact();
  private readonly errors = new RecentErrors();
  private readonly swipes = new Map<string, number>();
  private readonly startedAt: number;
  private tokenProblem: string | undefined;
  private server: ControlServer | undefined;

  constructor(
    private readonly settings: AgentControlSettings,
    private readonly view: AgentView,
  ) {
    this.startedAt = settings.clock.now();
    this.metrics = new AgentMetrics(
      {
        outbox: () => this.outbox(),
        cloud: () => this.cloudConnection(),
        printers: () => view.printers().map((p) => ({ name: p.config.name, state: p.state })),
        readers: () => view.stations().map((s) => ({ station: s.name, state: s.state })),
        jobsWaitingForDocument: () => view.jobsWaitingForDocument?.() ?? 0,
      },
      { build: { version: settings.version } },
    );
  }

  /** The channel is up; the last request (or the open channel) reached the cloud. */
  private cloudConnection(): { connected: boolean; reachable: boolean } {
    const connected = this.view.channelConnected();
    return { connected, reachable: this.cloud.reachable || connected };
  }

  /** A card read at a station: counted for /status and the metrics. */
  swipe(station: string, outcome: SwipeOutcome): void {
    this.swipes.set(station, (this.swipes.get(station) ?? 0) + 1);
    this.metrics.swipe(station, outcome);
  }

  /** Listens when enabled; resolves with the URL (undefined when disabled). */
  async start(): Promise<string | undefined> {
    const { config, logger } = this.settings;
    if (!config.enabled) return undefined;
    this.server = new ControlServer({
      bind: config.bind,
      port: config.port,
      status: () => this.status(),
      metrics: this.metrics,
      logger,
    });
    const url = await this.server.start();
    logger.info({ url }, 'control API listening');
    return url;
  }

  /** Closes the server and unregisters the metrics. */
  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
    this.metrics.clear();
  }

  /** The base URL while listening. */
  url(): string | undefined {
    return this.server?.url();
  }

  /** Remembers an error for /status (scrubbed of secrets). */
  error(part: string, message: string): void {
    this.errors.add(this.settings.clock.now(), part, this.settings.scrub(message));
  }

  /** The outcome of obtaining a token: undefined when it worked, else why not. */
  tokenOutcome(problem: string | undefined): void {
    this.tokenProblem = problem === undefined ? undefined : this.settings.scrub(problem);
    if (problem !== undefined) this.error('token', problem);
  }

  /** One unfinished job as /status lists it; a job waiting for its document shows why instead of its ledger error. */
  private jobInFlight(j: LedgerJob, names: Map<string, string>, now: number): JobInFlight {
    const documentWait = this.view.documentWaitReason?.(j.jobId);
    const lastError = documentWait ?? j.lastError;
    return {
      id: j.jobId,
      printer: names.get(j.printerId) ?? j.printerId,
      state: j.state,
      attempts: j.attempts,
      ageS: Math.round((now - j.createdAt) / 1000),
      ...optional('lastError', lastError && this.settings.scrub(lastError)),
      ...(documentWait === undefined
        ? {}
        : {
            waitingFor: 'document' as const,
            documentTries: j.refetchTries,
            nextTryInS: Math.max(0, Math.round(((j.nextRetryAt ?? now) - now) / 1000)),
          }),
    };
  }

  /** The /status document now. */
  status(): AgentStatus {
    const { clock, cloudUrl, channel, version } = this.settings;
    const now = clock.now();
    const jobs = this.view.unfinishedJobs();
    const names = new Map(this.view.printers().map((p) => [p.cloudId, p.config.name]));
    const expiresAt = this.view.tokenExpiresAt();
    return {
      version,
      pid: process.pid,
      dataDir: this.settings.dataDir,
      ...optional('instance', this.view.instance()),
      startedAt: new Date(this.startedAt).toISOString(),
      uptimeS: Math.round((now - this.startedAt) / 1000),
      cloud: {
        url: cloudUrl,
        channel,
        ...this.cloudConnection(),
        ...iso('lastContactAt', this.cloud.lastContactAt),
        ...(this.cloud.lastError ? { lastError: this.settings.scrub(this.cloud.lastError) } : {}),
      },
      connector: {
        registered: this.view.connectorId() !== undefined,
        ...optional('id', this.view.connectorId()),
      },
      token: {
        valid: expiresAt !== undefined && this.tokenProblem === undefined,
        ...iso('expiresAt', expiresAt),
        ...optional('problem', expiresAt === undefined ? 'no token stored' : this.tokenProblem),
      },
      printers: this.view.printers().map((p) => ({
        name: p.config.name,
        uri: p.config.uri,
        cloudId: p.cloudId,
        state: p.state,
      })),
      jobs: {
        inFlight: jobs.length,
        list: jobs.slice(0, LISTED_JOBS).map((j) => this.jobInFlight(j, names, now)),
      },
      outbox: this.outbox(),
      readers: this.view.stations().map((s) => ({
        station: s.name,
        reader: s.reader,
        printer: s.printer,
        state: s.state,
        ...optional('problem', s.problem),
        swipes: this.swipes.get(s.name) ?? 0,
      })),
      lastErrors: this.errors.list(),
    };
  }

  private outbox(): { depth: number; oldestAgeS: number } {
    const { depth, oldestCreatedAt } = this.view.outbox();
    const age = oldestCreatedAt === undefined ? 0 : (this.settings.clock.now() - oldestCreatedAt) / 1000;
    return { depth, oldestAgeS: Math.max(0, Math.round(age)) };
  }
}

function iso<K extends string>(key: K, ms: number | undefined): { [P in K]?: string } {
  return (ms === undefined ? {} : { [key]: new Date(ms).toISOString() }) as { [P in K]?: string };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value ? { [key]: value } : {}) as { [P in K]?: string };
}
