/**
 * One card session's copy accounting: reads the source at the start, on every poll and at the
 * end, and records what the device produced that was not a released print job — CreateLocalJob
 * (through the store and the outbox) when the first copy is seen, UpdateLocalJob with only the
 * changed parameters, and the final Status when the session ends (Failed when the device could
 * not be read at the end or reported the run failed). Calls are serialized. The source belongs
 * to the caller.
 */
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { LocalJobFields } from '../../protocol/tpfm-local-job.js';
import type { FinalStatus, LocalJobStore } from '../../store/local-job-store.js';
import { accumulate, type CounterSnapshot, copyFields, type SessionTotals } from './copy-counting.js';
import type { CounterSource } from './counter-source.js';
import { changedFields } from './local-job-plan.js';

/** What a session is given. */
export interface CopySessionDeps {
  station: string;
  printer: string;
  /** The card holder's user id (a secret). */
  user: string;
  source: CounterSource;
  store: LocalJobStore;
  clock: Clock;
  paperId: number;
  logger: Logger;
  /** Called after an operation was queued (wakes the sender). */
  onQueued: () => void;
}

/** What a finished session recorded. */
export interface CopyOutcome {
  recordId: string;
  fields: LocalJobFields;
  status: FinalStatus;
}

/** See the file comment. */
export class CopySession {
  private prev: CounterSnapshot | undefined;
  private totals: SessionTotals = { impressions: 0 };
  private releasedPages = 0;
  private releasing = 0;
  private recordId: string | undefined;
  private recorded: LocalJobFields = {};
  private chain: Promise<unknown> = Promise.resolve();
  private ended = false;
  /** Epoch ms of the last sign of use (start, new pages, a release). */
  lastActivity: number;

  constructor(private readonly deps: CopySessionDeps) {
    this.lastActivity = deps.clock.now();
  }

  /** The card holder of this session. */
  get user(): string {
    return this.deps.user;
  }

  /** Takes the starting reading; throws when the source does not answer. */
  async begin(signal?: AbortSignal): Promise<void> {
    this.prev = await this.deps.source.read(signal);
  }

  /** A released print job started: readings wait until it ended (its pages are in flight). */
  releaseStarted(): void {
    this.releasing++;
    this.lastActivity = this.deps.clock.now();
  }

  /** A released print job ended having printed `pages`. */
  releaseEnded(pages: number): void {
    this.releasing = Math.max(0, this.releasing - 1);
    this.releasedPages += pages;
    this.lastActivity = this.deps.clock.now();
  }

  /** Reads the source and records changes; a failed read is logged and skipped. */
  poll(): Promise<void> {
    return this.serial(async () => {
      if (this.ended || this.releasing > 0) return;
      try {
        this.apply(await this.deps.source.read());
      } catch (error) {
        this.deps.logger.debug({ error: errorMessage(error) }, 'copy counters not read');
        return;
      }
      this.record();
    });
  }

  /** Final reading and final Status; resolves with what was recorded (undefined: no copies). */
  end(): Promise<CopyOutcome | undefined> {
    return this.serial(async () => {
      if (this.ended) return undefined;
      this.ended = true;
      let readable = true;
      try {
        this.apply(await this.deps.source.read());
      } catch (error) {
        readable = false;
        this.deps.logger.warn({ error: errorMessage(error) }, 'copy counters not read at session end');
      }
      const fields = this.fields();
      if (!fields) return undefined;
      const status: FinalStatus = readable && !this.prev?.failed ? 'Succeeded' : 'Failed';
      const recordId = this.recordId ?? this.open(fields);
      this.deps.store.finish(recordId, status, changedFields(this.recorded, fields));
      this.deps.onQueued();
      this.deps.logger.info(
        { record: recordId, pages: fields.TotalPrintedPages, status },
        'copy job recorded',
      );
      return { recordId, fields, status };
    });
  }

  private apply(next: CounterSnapshot): void {
    if (this.prev) {
      const before = this.totals.impressions;
      this.totals = accumulate(this.totals, this.prev, next);
      if (this.totals.impressions > before) this.lastActivity = this.deps.clock.now();
    }
    this.prev = next;
  }

  private fields(): LocalJobFields | undefined {
    if (!this.prev) return undefined;
    const released = { pages: this.deps.source.includesReleased ? this.releasedPages : 0 };
    return copyFields(this.totals, released, this.prev, { paperId: this.deps.paperId });
  }

  private record(): void {
    const fields = this.fields();
    if (!fields) return;
    if (!this.recordId) {
      this.open(fields);
    } else {
      const changed = changedFields(this.recorded, fields);
      if (Object.keys(changed).length === 0) return;
      this.deps.store.update(this.recordId, changed);
      this.recorded = fields;
    }
    this.deps.onQueued();
  }

  private open(fields: LocalJobFields): string {
    const { station, printer, user, source, store } = this.deps;
    this.recordId = store.open({ station, printer, userId: user, source: source.kind, fields });
    this.recorded = fields;
    return this.recordId;
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const next = this.chain.then(task);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
