/**
 * Copy accounting of one release station. A card at the reader starts a copy session (another
 * card ends the running one first); card removal, or no new pages for the session timeout, ends
 * it. At the start the configured sources are tried in order and the first that answers counts
 * the whole session; while it runs the counters are polled. The station reports released print
 * jobs, so their pages are not recorded as copies. The person sees what was recorded on the
 * station's UI. stop() ends a running session and closes the sources.
 */
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { LocalJobStore } from '../../store/local-job-store.js';
import type { CopyEvent, CopyEventCounter } from './copy-events.js';
import { type CopyOutcome, CopySession } from './copy-session.js';
import type { CounterSource } from './counter-source.js';

/** What the station shows people (ReleaseUi fits). */
export interface CopyUi {
  message(kind: 'info' | 'error', text: string): void;
}

/** What a tracker is built from. */
export interface CopyTrackerDeps {
  station: string;
  printer: string;
  /** The configured sources in the order they are tried. */
  sources: readonly CounterSource[];
  store: LocalJobStore;
  clock: Clock;
  logger: Logger;
  ui: CopyUi;
  paperId: number;
  pollIntervalMs: number;
  sessionTimeoutMs: number;
  onQueued: () => void;
  /** Called with every finished session that recorded copies (tests, status pages). */
  onRecorded?: (outcome: CopyOutcome) => void;
}

/** Result of a posted copy event. */
export type CopyEventResult = 'recorded' | 'no-session' | 'not-a-source';

/** See the file comment. */
export class CopyTracker {
  private session: CopySession | undefined;
  private starting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: CopyTrackerDeps) {}

  /** A card was presented (user id after conversion). */
  cardPresent(user: string): Promise<void> {
    const run = async () => {
      if (this.session?.user === user) {
        this.session.lastActivity = this.deps.clock.now();
        return;
      }
      await this.endSession();
      if (!this.stopped) await this.startSession(user);
    };
    this.starting = (this.starting ?? Promise.resolve()).then(run);
    return this.starting;
  }

  /** The card left the reader: the session ends. */
  cardRemoved(): Promise<CopyOutcome | undefined> {
    return this.afterStart(() => this.endSession());
  }

  /** A released print job started / ended with its page count. */
  releaseStarted(): void {
    this.session?.releaseStarted();
  }

  releaseEnded(pages: number): void {
    this.session?.releaseEnded(pages);
  }

  /**
   * A copy event from the device app: counted when this station uses the app and a session runs.
   * Resolves once the session read it, so 'recorded' means the pages are in the agent database
   * (and queued for the cloud) unless a released job is printing (readings wait for its end).
   */
  async postEvent(event: CopyEvent): Promise<CopyEventResult> {
    const counter = this.deps.sources.find((s): s is CopyEventCounter => s.kind === 'http');
    if (!counter) return 'not-a-source';
    const session = this.session;
    if (!session) return 'no-session';
    counter.add(event);
    await session.poll();
    return 'recorded';
  }

  /** Reads the counters now (the poll timer does this on its own). */
  poll(): Promise<void> {
    return this.afterStart(async () => {
      const session = this.session;
      if (!session) return;
      if (this.deps.clock.now() - session.lastActivity >= this.deps.sessionTimeoutMs) {
        await this.endSession();
        return;
      }
      await session.poll();
    });
  }

  /** Ends a running session and closes every source. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.afterStart(() => this.endSession());
    for (const source of this.deps.sources) await source.close().catch(() => {});
  }

  private async afterStart<T>(task: () => Promise<T>): Promise<T> {
    await this.starting;
    return task();
  }

  private async startSession(user: string): Promise<void> {
    for (const source of this.deps.sources) {
      const session = new CopySession({ ...this.deps, user, source, logger: this.deps.logger });
      try {
        await session.begin();
      } catch (error) {
        this.deps.logger.info(
          { source: source.kind, reason: errorMessage(error) },
          'copy count source not answering',
        );
        continue;
      }
      this.session = session;
      this.timer = setInterval(() => void this.poll(), this.deps.pollIntervalMs);
      this.deps.logger.debug({ source: source.kind }, 'copy session started');
      return;
    }
    this.deps.logger.warn('no copy count source answered; copies of this session are not recorded');
  }

  private async endSession(): Promise<CopyOutcome | undefined> {
    const session = this.session;
    this.session = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
    if (!session) return undefined;
    const outcome = await session.end();
    if (outcome) {
      const { TotalPrintedPages: pages, TotalPrintedColorPages: color } = outcome.fields;
      const colour = color ? ` (${color} in colour)` : '';
      const failed = outcome.status === 'Failed' ? ', marked failed' : '';
      this.deps.ui.message(
        'info',
        `Copies recorded: ${pages} page${pages === 1 ? '' : 's'}${colour}${failed}`,
      );
      this.deps.onRecorded?.(outcome);
    }
    return outcome;
  }
}
