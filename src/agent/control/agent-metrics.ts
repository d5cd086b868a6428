/**
 * The agent's Prometheus metrics (prom-client, on a registry of its own, never the global one).
 * Parts feed it through the small observer interfaces below, handed to them by agent.ts; the
 * gauges that describe "now" (outbox, printer and reader states) are read from a GaugeSource at
 * scrape time, so nothing polls. No resources to clean up besides the default process metrics'
 * event-loop monitor, which clear() stops.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Final job states as counted by `printrelay_jobs_total`. */
export type FinalJobState = 'completed' | 'failed' | 'cancelled';

/** What the job pipeline reports. */
export interface JobObserver {
  /** A job reached a final state `latencyS` seconds after its offer was recorded. */
  jobFinished(state: FinalJobState, printer: string, latencyS: number): void;
  /** A document of `bytes` was downloaded into the spool. */
  downloaded(bytes: number): void;
  /** A document of `bytes` was handed to a printer. */
  printed(bytes: number): void;
}

/** What the token store's grants report. */
export interface TokenObserver {
  tokenRefresh(ok: boolean): void;
}

/** What the printer sync reports after each run. */
export interface SyncObserver {
  /** One run: whether it completed, and the cloud write requests it sent by kind (create, patch, ...). */
  syncRun(ok: boolean, writes: Readonly<Record<string, number>>, failedWrites: number): void;
}

/** What release stations report. */
export interface SwipeObserver {
  /** A card was read at a station: `session` started one, `busy` touched a running one, `unreadable` failed conversion. */
  swipe(station: string, outcome: SwipeOutcome): void;
}

/** What happened to one swipe. */
export type SwipeOutcome = 'session' | 'busy' | 'unreadable';

/** The "now" values read at scrape time. */
export interface GaugeSource {
  outbox(): { depth: number; oldestAgeS: number };
  /** The cloud connection: the channel WebSocket is up; the last request reached the cloud. */
  cloud(): { connected: boolean; reachable: boolean };
  printers(): readonly { name: string; state: string }[];
  readers(): readonly { station: string; state: string }[];
  /** Jobs whose document (lost in a restart) could not be fetched again, waiting for their next try. */
  jobsWaitingForDocument?(): number;
}

/** Every state a printer gauge can show (one series per state, 1 for the current one). */
export const PRINTER_STATES = ['idle', 'processing', 'stopped', 'unreachable'] as const;
/** Every state a reader gauge can show. */
export const READER_STATES = ['starting', 'running', 'retrying', 'failed', 'stopped'] as const;

/** Seconds from offer to final state; printing includes queueing behind other jobs. */
const LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

/** The metrics; implements every observer. */
export class AgentMetrics implements JobObserver, TokenObserver, SyncObserver, SwipeObserver {
  readonly registry = new Registry();
  private readonly jobs: Counter<'state' | 'printer'>;
  private readonly latency: Histogram<'printer'>;
  private readonly downloadBytes: Counter;
  private readonly printBytes: Counter;
  private readonly refreshes: Counter;
  private readonly refreshFailures: Counter;
  private readonly swipes: Counter<'station' | 'outcome'>;
  private readonly syncRuns: Counter<'result'>;
  private readonly syncWrites: Counter<'kind'>;
  private readonly syncWriteFailures: Counter;

  /**
   * `build` labels printrelay_build_info (the package version; node defaults to this process's
   * version); `processMetrics: false` leaves out prom-client's process and Node metrics.
   */
  constructor(
    source: GaugeSource,
    options: { processMetrics?: boolean; build?: { version: string; node?: string } } = {},
  ) {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.jobs = counter('printrelay_jobs_total', 'Jobs that reached a final state.', ['state', 'printer']);
    this.latency = new Histogram({
      name: 'printrelay_print_latency_seconds',
      help: 'Time from a job offer to its final state.',
      labelNames: ['printer'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.downloadBytes = counter(
      'printrelay_download_bytes_total',
      'Document bytes downloaded to the spool.',
    );
    this.printBytes = counter('printrelay_print_bytes_total', 'Document bytes handed to printers.');
    this.refreshes = counter('printrelay_token_refreshes_total', 'Access-token refreshes attempted.');
    this.refreshFailures = counter(
      'printrelay_token_refresh_failures_total',
      'Access-token refreshes that failed.',
    );
    this.swipes = counter('printrelay_reader_swipes_total', 'Cards read at release stations.', [
      'station',
      'outcome',
    ]);
    this.syncRuns = counter('printrelay_sync_runs_total', 'Printer sync runs.', ['result']);
    this.syncWrites = counter(
      'printrelay_sync_write_requests_total',
      'Cloud write requests sent by printer syncs.',
      ['kind'],
    );
    this.syncWriteFailures = counter(
      'printrelay_sync_write_failures_total',
      'Cloud write requests of syncs that failed.',
    );
    this.addGauges(source);
    if (options.build) {
      new Gauge({
        name: 'printrelay_build_info',
        help: 'Always 1; the labels say which PrintRelay version runs on which Node.js.',
        labelNames: ['version', 'node'],
        registers,
      }).set({ version: options.build.version, node: options.build.node ?? process.version }, 1);
    }
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  jobFinished(state: FinalJobState, printer: string, latencyS: number): void {
    this.jobs.inc({ state, printer });
    this.latency.observe({ printer }, Math.max(0, latencyS));
  }

  downloaded(bytes: number): void {
    this.downloadBytes.inc(bytes);
  }

  printed(bytes: number): void {
    this.printBytes.inc(bytes);
  }

  tokenRefresh(ok: boolean): void {
    this.refreshes.inc();
    if (!ok) this.refreshFailures.inc();
  }

  syncRun(ok: boolean, writes: Readonly<Record<string, number>>, failedWrites: number): void {
    this.syncRuns.inc({ result: ok ? 'ok' : 'failed' });
    for (const [kind, n] of Object.entries(writes)) if (n > 0) this.syncWrites.inc({ kind }, n);
    if (failedWrites > 0) this.syncWriteFailures.inc(failedWrites);
  }

  swipe(station: string, outcome: SwipeOutcome): void {
    this.swipes.inc({ station, outcome });
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Content type of render()'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Unregisters everything (stops the default metrics' event-loop monitor). */
  clear(): void {
    this.registry.clear();
  }

  private addGauges(source: GaugeSource): void {
    const registers = [this.registry];
    new Gauge({
      name: 'printrelay_outbox_depth',
      help: 'Records waiting in the outbox for the cloud.',
      registers,
      collect() {
        this.set(source.outbox().depth);
      },
    });
    new Gauge({
      name: 'printrelay_outbox_oldest_age_seconds',
      help: 'Age of the oldest record waiting in the outbox (0 when empty).',
      registers,
      collect() {
        this.set(source.outbox().oldestAgeS);
      },
    });
    new Gauge({
      name: 'printrelay_cloud_connected',
      help: 'Whether the channel WebSocket to the cloud is up (1) or not (0); always 0 with channel: poll.',
      registers,
      collect() {
        this.set(source.cloud().connected ? 1 : 0);
      },
    });
    new Gauge({
      name: 'printrelay_cloud_reachable',
      help: 'Whether the last request reached the cloud (1) or failed with a network error, timeout or 5xx (0).',
      registers,
      collect() {
        this.set(source.cloud().reachable ? 1 : 0);
      },
    });
    new Gauge({
      name: 'printrelay_jobs_waiting_for_document',
      help: 'Jobs whose document (lost in a restart) the cloud could not serve again, waiting out of their printer line for the next try.',
      registers,
      collect() {
        this.set(source.jobsWaitingForDocument?.() ?? 0);
      },
    });
    stateGauge('printrelay_printer_state', 'printer', PRINTER_STATES, () =>
      source.printers().map((p) => ({ key: p.name, state: p.state })),
    );
    stateGauge('printrelay_reader_state', 'station', READER_STATES, () =>
      source.readers().map((r) => ({ key: r.station, state: r.state })),
    );

    function stateGauge(
      name: string,
      keyLabel: string,
      states: readonly string[],
      read: () => { key: string; state: string }[],
    ): void {
      new Gauge({
        name,
        help: `1 for the current state of each ${keyLabel}, 0 for the others.`,
        labelNames: [keyLabel, 'state'],
        registers,
        collect() {
          this.reset();
          for (const { key, state } of read()) {
            for (const s of states) this.set({ [keyLabel]: key, state: s }, s === state ? 1 : 0);
          }
        },
      });
    }
  }
}
