/**
 * The agent's release stations: builds one ReleaseStation per `release_stations` entry
 * (station-factory.ts) and keeps them running. One failing station never stops the agent or the
 * other stations: a station whose configuration is wrong (bad conversion chain, unknown reader
 * profile, while-present on a reader without removal) is reported and left off; one that fails
 * for a passing reason (its socket port taken, ...) is retried with backoff until stop().
 * `LogReleaseUi` is the UI of a station without a terminal (the daemon): its lines go to the
 * station's log. start() never throws; stop() stops every station and closes its client.
 */
import type { CardReaderContext } from '../../cardreader/reader-registry.js';
import { loadReaderProfiles, type ReaderProfile } from '../../cardreader/reader-profiles.js';
import type { TpfmProgressEvent } from '../../client/tpfm-print-run.js';
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import type { Clock } from '../../lib/clock.js';
import { errorMessage, isValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { Redactor } from '../../log/redaction.js';
import { jobTitle, type TpfmJob } from '../../protocol/tpfm-job-list.js';
import type { ReleaseStationConfig } from '../../config/release-station-schema.js';
import { isDeepStrictEqual } from 'node:util';
import type { SessionSummary } from './release-session.js';
import type { JobChoice, ReleaseUi } from './release-ui.js';
import { type BuiltStation, createReleaseStation, type StationCopiesFactory } from './station-factory.js';

/** A station's state as the agent reports it. */
export interface StationStatus {
  name: string;
  reader: string;
  printer: string;
  state: 'starting' | 'running' | 'retrying' | 'failed' | 'stopped';
  /** Why it is not running (no secrets: reader errors and config rules). */
  problem?: string;
}

/** What the stations are built from. */
export interface ReleaseStationsDeps {
  configs: readonly ReleaseStationConfig[];
  logger: Logger;
  clock: Clock;
  /** Where passwords and card numbers are registered (share the logger's). */
  redactor: Redactor;
  /** The UI of one station; default LogReleaseUi on the station's logger. */
  ui?: (config: ReleaseStationConfig, logger: Logger) => ReleaseUi;
  /** Reader profiles; default: loaded from drivers/cardreaders at start(). */
  profiles?: readonly ReaderProfile[];
  /** PEM of a CA to trust for the pull service besides the system roots (cloud.ca_file). */
  cloudCa?: string;
  /** Hardware overrides for the reader registry (tests). */
  readerOverrides?: Pick<CardReaderContext, 'hidOpen' | 'serialFactory' | 'keyboardInput'>;
  /** Retry of stations that failed to start; default 1 s doubling up to 60 s. */
  retry?: BackoffPolicy;
  /** Builds each station's copy accounting (agent/copyjobs); default none. */
  copies?: StationCopiesFactory;
  /** Called after every finished release session (tests, status pages). */
  onSessionEnd?: (station: string, summary: SessionSummary) => void;
  /** Called for every card read at a station (metrics; no card number). */
  onSwipe?: (station: string, outcome: 'session' | 'busy' | 'unreadable') => void;
}

interface Slot {
  config: ReleaseStationConfig;
  status: StationStatus;
  built?: BuiltStation;
  timer?: NodeJS.Timeout;
  /** A start in progress (stop() waits for it, so no reader is left listening). */
  starting?: Promise<void>;
  attempt: number;
}

const DEFAULT_RETRY: BackoffPolicy = { initialMs: 1000, maxMs: 60_000, factor: 2, jitter: 0.2 };

/** See the file comment. */
export class ReleaseStations {
  private slots: Slot[] = [];
  private profiles: readonly ReaderProfile[] = [];
  private stopped = false;

  constructor(private readonly deps: ReleaseStationsDeps) {}

  /** Builds and starts every station; problems are logged and kept in status(), never thrown. */
  async start(): Promise<void> {
    this.profiles = this.deps.profiles ?? (await this.loadProfiles());
    const names = new Set<string>();
    for (const config of this.deps.configs) await this.add(config, names);
  }

  /**
   * Applies a new station list (configuration reload): stations that were removed or changed
   * stop (a running session ends), new and changed ones start, unchanged ones keep running.
   */
  async reconfigure(configs: readonly ReleaseStationConfig[]): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map(configs.map((c) => [c.name, c]));
    const kept: Slot[] = [];
    for (const slot of this.slots) {
      const next = wanted.get(slot.config.name);
      if (next && slot.status.state !== 'failed' && isDeepStrictEqual(next, slot.config)) {
        kept.push(slot);
        continue;
      }
      await slot.starting;
      await this.stopSlot(slot);
    }
    this.slots = kept;
    const names = new Set(kept.map((s) => s.config.name));
    for (const config of configs)
      if (!kept.some((s) => s.config === config || isDeepStrictEqual(s.config, config)))
        await this.add(config, names);
  }

  private async add(config: ReleaseStationConfig, names: Set<string>): Promise<void> {
    const status: StationStatus = {
      name: config.name,
      reader: config.reader,
      printer: config.printer,
      state: 'starting',
    };
    const slot: Slot = { config, status, attempt: 0 };
    this.slots.push(slot);
    if (names.has(config.name)) {
      this.fail(slot, 'another release station has the same name', false);
      return;
    }
    names.add(config.name);
    await this.launch(slot);
  }

  /** Stops every station (ending running sessions) and closes the clients. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.slots.map((slot) => slot.starting));
    await Promise.all(this.slots.map((slot) => this.stopSlot(slot)));
  }

  /** Each configured station and its state. */
  status(): StationStatus[] {
    return this.slots.map((slot) => ({ ...slot.status }));
  }

  private async loadProfiles(): Promise<readonly ReaderProfile[]> {
    try {
      return await loadReaderProfiles();
    } catch (error) {
      this.deps.logger.warn({ reason: errorMessage(error) }, 'reader profiles not loaded; stations use none');
      return [];
    }
  }

  private async launch(slot: Slot): Promise<void> {
    slot.starting = this.startSlot(slot);
    await slot.starting;
    slot.starting = undefined;
  }

  private async startSlot(slot: Slot): Promise<void> {
    const { config } = slot;
    const logger = this.deps.logger.child({ station: config.name });
    let built: BuiltStation;
    try {
      built = createReleaseStation(config, {
        logger: this.deps.logger,
        redactor: this.deps.redactor,
        clock: this.deps.clock,
        ui: this.deps.ui?.(config, logger) ?? new LogReleaseUi(logger),
        profiles: this.profiles,
        onSwipe: (outcome) => this.deps.onSwipe?.(config.name, outcome),
        ...(this.deps.readerOverrides ? { readerOverrides: this.deps.readerOverrides } : {}),
        ...(this.deps.copies ? { copies: this.deps.copies } : {}),
        ...(this.deps.cloudCa ? { cloudCa: this.deps.cloudCa } : {}),
      });
    } catch (error) {
      this.fail(slot, errorMessage(error), false);
      return;
    }
    slot.built = built;
    const { onSessionEnd } = this.deps;
    if (onSessionEnd) built.station.onSessionEnd((summary) => onSessionEnd(config.name, summary));
    try {
      await built.station.start();
      slot.status = { ...slot.status, state: 'running', problem: undefined };
      slot.attempt = 0;
    } catch (error) {
      await this.stopSlot(slot);
      this.fail(slot, errorMessage(error), !isValidationError(error));
    }
  }

  private fail(slot: Slot, problem: string, retry: boolean): void {
    const reason = this.deps.redactor.scrubString(problem);
    slot.status = { ...slot.status, state: retry ? 'retrying' : 'failed', problem: reason };
    const logger = this.deps.logger.child({ station: slot.config.name });
    if (!retry || this.stopped) {
      logger.error({ reason }, 'release station not started');
      return;
    }
    const delay = backoffDelay(this.deps.retry ?? DEFAULT_RETRY, slot.attempt++);
    logger.warn({ reason, retryInMs: Math.round(delay) }, 'release station failed to start; retrying');
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      if (!this.stopped) void this.launch(slot);
    }, delay);
  }

  private async stopSlot(slot: Slot): Promise<void> {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    const built = slot.built;
    slot.built = undefined;
    if (!built) return;
    try {
      await built.station.stop();
    } catch (error) {
      this.deps.logger.warn(
        { station: slot.config.name, reason: errorMessage(error) },
        'station stop failed',
      );
    }
    await built.client.close().catch(() => {});
    if (this.stopped) slot.status = { ...slot.status, state: 'stopped' };
  }
}

/** A station UI without a terminal: messages and progress go to the station's log. */
export class LogReleaseUi implements ReleaseUi {
  constructor(private readonly logger: Logger) {}

  message(kind: 'info' | 'error', text: string): void {
    if (kind === 'error') this.logger.warn({ display: text }, 'release station message');
    else this.logger.info({ display: text }, 'release station message');
  }

  progress(job: TpfmJob, event: TpfmProgressEvent): void {
    const done = event.kind === 'pages' ? `${event.page}/${event.total} pages` : `${event.percent}%`;
    this.logger.debug({ job: jobTitle(job), done }, 'release progress');
  }

  /** Nobody can choose without a terminal: every job is released. */
  async choose(jobs: TpfmJob[]): Promise<JobChoice> {
    this.logger.info({ jobs: jobs.length }, 'no terminal to choose on; releasing every job');
    return { print: [...jobs], delete: [] };
  }
}
