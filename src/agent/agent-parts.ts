/**
 * What the agent is made of: AgentDeps (what it is built from), Running (the parts that exist
 * while it runs) and AgentContext (what the builders of those parts share). Types only.
 */
import type { HttpClient } from '../client/http-base.js';
import type { TokenStore } from '../client/token-store.js';
import type { AgentConfig } from '../config/agent-schema.js';
import type { Clock } from '../lib/clock.js';
import type { StatementProfile } from '../lib/sqlite-profile.js';
import type { Logger } from '../log/logger.js';
import type { Redactor } from '../log/redaction.js';
import type { BackendRegistry } from '../printing/backend-registry.js';
import type { ServiceNotifier } from '../service/service-notifier.js';
import type { AgentDatabase } from '../store/agent-db.js';
import type { DataDirLock } from '../store/data-dir-lock.js';
import type { IdentityStore } from '../store/identity-store.js';
import type { JobLedger } from '../store/job-ledger.js';
import type { Outbox } from '../store/outbox.js';
import type { InlineDocuments } from './jobs/inline-documents.js';
import type { JobFeed } from './jobs/job-feed.js';
import type { JobLoop } from './jobs/job-loop.js';
import type { OutboxSender } from './jobs/outbox-sender.js';
import type { PrinterSync } from './printer-sync/printer-sync.js';
import type { RegisteredPrinter, Registration } from './connector/registration.js';
import type { TicketOverrides } from './jobs/ticket-overrides.js';
import type { AgentControl } from './control/agent-control.js';
import type { CopyJobs, CopyJobsDeps } from './copyjobs/copy-jobs.js';
import type { ReleaseStations, ReleaseStationsDeps } from './release/release-stations.js';

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
  /**
   * The highest connector channel protocol the agent asks for (default CONNECTOR_PROTOCOL_VERSION,
   * 3); 2 makes it act as an agent of protocol 2 (compatibility tests, the benchmark's baseline).
   */
  channelProtocol?: number;
  /** Called with every copy session that recorded copies (tests, status pages). */
  onCopyRecorded?: CopyJobsDeps['onRecorded'];
  /** Counts and times the agent database's statements (PRINTRELAY_SQL_PROFILE); default none. */
  statementProfile?: StatementProfile;
}

/** The parts that exist while the agent runs. */
export interface Running {
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
  /** Small documents that came inline with their offers (protocol 3), until their download step takes them. */
  inline: InlineDocuments;
  /** Keeps the cloud's printers true (configured + discovered); feeds `printers`. */
  sync?: PrinterSync;
  /** Admin overrides for tickets: the job runner calls `overrides.apply(printerId, ticket)` before submit. */
  overrides?: TicketOverrides;
  stations?: ReleaseStations;
  copies?: CopyJobs;
}

/** The parts while start() brings them up: the store, the lock and the control API come first. */
export type StartingParts = Partial<Running> & Pick<Running, 'db' | 'lock' | 'control'>;

/** What the part builders share; `caPem` is read at every start (cloud.ca_file). */
export interface AgentContext {
  deps: AgentDeps;
  clock: Clock;
  notifier: ServiceNotifier;
  /** The PEM of cloud.ca_file, read at start (undefined: the system roots only). */
  caPem: string | undefined;
}
