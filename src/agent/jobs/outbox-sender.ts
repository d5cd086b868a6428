/**
 * Delivers the outbox to the cloud in batches (POST /connector/v1/events): each batch carries
 * every pending event of the jobs whose head is due, in seq order, so a job's later events ride
 * along with its head. A row leaves the outbox only once the cloud acknowledged it; refused and
 * unsent events are retried with backoff, except when the cloud answers that the job is gone for
 * this connector (404: no such job for it, 410: gone): retrying could never succeed, so all of
 * that job's undelivered events leave the outbox, logged once. start() runs the loop; notify()
 * wakes it after an add; stop() ends it. A job's events are never in two requests at once: the
 * jobs of a batch in flight, and those whose events ride on a channel claim (protocol 4,
 * takeForClaim / settleClaim), are left out of the next batches until their answer is in.
 */
import type { Clock } from '../../lib/clock.js';
import { errorMessage, isRetryable } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  EVENT_SKIPPED,
  MAX_EVENT_BATCH,
  type JobEventBatchItem,
  type JobEventItemResult,
} from '../../protocol/connector-channel.js';
import type { Outbox, PendingEvent } from '../../store/outbox.js';

/** Per-event answers that say the job is gone for this connector: its events can never be delivered. */
const JOB_GONE_STATUSES = new Set([404, 410]);

/** Batches posted at once (disjoint jobs); more would only queue at the cloud. */
const MAX_IN_FLIGHT = 2;

/** Posts a batch of events; resolves with one result per event in order, throws when the whole request failed. */
export type PostEvents = (items: JobEventBatchItem[], signal: AbortSignal) => Promise<JobEventItemResult[]>;

/**
 * Posts each batch on the channel while `channelUp()` says it carries events (protocol 3, open),
 * otherwise over REST. A batch whose channel closes before its answer fails as a lost request
 * does and goes again, by whichever way is up then.
 */
export function channelOrRest(
  channelUp: () => boolean,
  overChannel: PostEvents,
  overRest: PostEvents,
): PostEvents {
  return (items, signal) => (channelUp() ? overChannel(items, signal) : overRest(items, signal));
}

/** The delivery loop over one Outbox. */
export class OutboxSender {
  private controller = new AbortController();
  private wake: (() => void) | undefined;
  private endLinger: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private notified = false;
  /** A final event was added since the last round: no long linger. */
  private urgent = false;
  /** Jobs whose events are in a batch in flight. */
  private readonly inBatch = new Set<string>();
  /** Jobs whose events ride on a channel claim in flight (takeForClaim until settleClaim). */
  private readonly inClaim = new Set<string>();

  constructor(
    private readonly outbox: Outbox,
    private readonly post: PostEvents,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly idleMs = 5000,
    /**
     * How long the loop waits after a wake-up before sending events that are not final. A job's
     * events come milliseconds apart (received, downloading, printing, completed) and many jobs
     * run at once: the wait lets one request carry a quick job's events whole, with those of
     * other jobs, instead of one request each. A final event ends it.
     */
    private readonly lingerMs = 100,
    /**
     * The wait before sending once a final event is pending: short, since the app and the user
     * wait for it, but enough for the final events of jobs that end within it to share a batch
     * (at 20 ms about half as many batches per job as at 2 ms with a busy printer:
     * docs/performance.md, Round 4, step 4).
     */
    private readonly finalLingerMs = 20,
  ) {}

  /** Starts delivering in the background. */
  start(): void {
    this.controller = new AbortController();
    this.loop = this.run(this.controller.signal);
  }

  /** Wakes the loop (an event was added); `urgent` also cuts the linger short (a final event). */
  notify(options: { urgent?: boolean } = {}): void {
    this.notified = true;
    if (options.urgent) this.urgent = true;
    this.wake?.();
    // A job's final event is what the user and the app wait for: the long linger ends, and the
    // round waits only finalLingerMs for other jobs' final events.
    if (options.urgent) this.endLinger?.();
  }

  /**
   * Delivers everything due now; returns how many events were delivered. Up to MAX_IN_FLIGHT
   * batches go out at once; they never share a job, so a job's events reach the cloud in order.
   * Repeats while a round delivered something (a job's next events may have become due).
   */
  async flush(signal: AbortSignal = this.controller.signal): Promise<number> {
    let delivered = 0;
    while (!signal.aborted) {
      const round = await this.round(signal);
      delivered += round.delivered;
      if (round.batches === 0 || round.delivered === 0) break;
    }
    return delivered;
  }

  /**
   * One round: up to MAX_IN_FLIGHT batches of what is due now. `full` says a batch reached the
   * size cap, so more was due than one request carries.
   */
  private async round(signal: AbortSignal): Promise<{ batches: number; delivered: number; full: boolean }> {
    const batches = this.nextBatches();
    if (batches.length === 0) return { batches: 0, delivered: 0, full: false };
    const counts = await Promise.all(batches.map((batch) => this.deliver(batch, signal)));
    return {
      batches: batches.length,
      delivered: counts.reduce((a, b) => a + b, 0),
      full: batches.some((batch) => batch.length >= MAX_EVENT_BATCH),
    };
  }

  /**
   * The job's pending events (up to MAX_EVENT_BATCH, seq order) for a channel claim to carry, the
   * job then left out of every batch until settleClaim; undefined (the claim carries none) when it
   * has none or they are in a batch or claim in flight already.
   */
  takeForClaim(jobId: string): PendingEvent[] | undefined {
    if (this.inBatch.has(jobId) || this.inClaim.has(jobId)) return undefined;
    const pending = this.outbox.pendingFor(jobId).slice(0, MAX_EVENT_BATCH);
    if (pending.length === 0) return undefined;
    this.inClaim.add(jobId);
    return pending;
  }

  /**
   * The answer to a claim that carried `pending` (takeForClaim): with `results` (one per event),
   * recorded as a batch's are, in one commit; without (no answer, a refused claim, a cloud that
   * did not apply them) the events stay as they were and go in the next batch. Either way the job
   * is free for the batches again, and the loop wakes.
   */
  settleClaim(jobId: string, pending: PendingEvent[], results: JobEventItemResult[] | undefined): void {
    try {
      if (results) this.record(pending, results);
    } finally {
      this.inClaim.delete(jobId);
      this.notify();
    }
  }

  /** Up to MAX_IN_FLIGHT batches of due events, no job in two of them nor in a request in flight. */
  private nextBatches(): PendingEvent[][] {
    // Most rounds end on an empty outbox: a cheap look at the earliest head spares the batch query.
    const next = this.outbox.nextDueAt();
    if (next === undefined || next > this.clock.now()) return [];
    if (this.inBatch.size === 0 && this.inClaim.size === 0) return this.outbox.dueBatches(MAX_IN_FLIGHT);
    const busy = [...this.inBatch, ...this.inClaim];
    return this.outbox.dueBatches(MAX_IN_FLIGHT, MAX_EVENT_BATCH, MAX_EVENT_BATCH, busy);
  }

  /** Posts one batch and records each outcome; returns how many events were acknowledged. */
  private async deliver(batch: PendingEvent[], signal: AbortSignal): Promise<number> {
    const jobs = new Set(batch.map((item) => item.jobId));
    for (const jobId of jobs) this.inBatch.add(jobId);
    try {
      return await this.send(batch, signal);
    } finally {
      for (const jobId of jobs) this.inBatch.delete(jobId);
    }
  }

  private async send(batch: PendingEvent[], signal: AbortSignal): Promise<number> {
    let results: JobEventItemResult[];
    try {
      results = await this.post(
        batch.map((item) => ({ job_id: item.jobId, event: item.event })),
        signal,
      );
    } catch (error) {
      if (signal.aborted) return 0;
      const retryAfter = isRetryable(error) ? error.retryAfterMs : undefined;
      this.outbox.failedMany(
        batch.map((item) => item.id),
        errorMessage(error),
        retryAfter,
      );
      const jobs = new Set(batch.map((item) => item.jobId)).size;
      this.logger.warn({ events: batch.length, jobs, error: errorMessage(error) }, 'event delivery failed');
      return 0;
    }
    return this.record(batch, results);
  }

  /**
   * Applies the cloud's per-event answers in one commit: 2xx leaves the outbox; `skipped` after
   * a refused event of the same job stays as it is (no attempt counted, it goes with its job's
   * next try); a job gone for this connector loses its undelivered events; anything else is a
   * failed attempt with backoff.
   */
  private record(batch: PendingEvent[], results: JobEventItemResult[]): number {
    const acknowledged: number[] = [];
    const failed: { id: number; error: string }[] = [];
    const refusedJobs = new Set<string>();
    const goneJobs = new Map<string, string>();
    batch.forEach((item, i) => {
      const result = results[i] as JobEventItemResult;
      if (result.status >= 200 && result.status < 300) {
        acknowledged.push(item.id);
        return;
      }
      // A skip without a refused predecessor in this batch would never clear: count it as a failure.
      if (result.error === EVENT_SKIPPED && refusedJobs.has(item.jobId)) return;
      refusedJobs.add(item.jobId);
      const reason = `${result.status} ${result.error ?? 'error'}: ${result.message ?? ''}`.trim();
      if (JOB_GONE_STATUSES.has(result.status)) {
        goneJobs.set(item.jobId, reason);
        return;
      }
      failed.push({ id: item.id, error: reason });
      this.logger.warn(
        {
          job: item.jobId,
          seq: item.event.seq,
          status: result.status,
          error: result.error,
          reason: result.message,
        },
        'event refused',
      );
    });
    const dropped = this.outbox.settleBatch({
      delivered: acknowledged,
      failed,
      discardJobs: [...goneJobs.keys()],
    });
    for (const [jobId, reason] of goneJobs) {
      this.logger.warn(
        { job: jobId, droppedEvents: dropped.get(jobId) ?? 0, reason },
        'the cloud no longer knows this job for this connector; its undelivered events are dropped',
      );
    }
    return acknowledged.length;
  }

  /** Stops the loop; undelivered events stay in the outbox for the next start. */
  async stop(): Promise<void> {
    this.controller.abort();
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.notified = false;
      this.urgent = false;
      // One round, not a flush: events added while it was in flight linger like any others
      // (sending them at once would cost a request each). Only a backlog goes on at once.
      const round = await this.round(signal);
      if (signal.aborted) return;
      if (round.full && round.delivered > 0) continue;
      if (!this.notified) {
        const next = this.outbox.nextDueAt();
        // Nothing went because the due jobs ride on claims: their settleClaim wakes the loop.
        const heldBack = round.batches === 0 && this.inClaim.size > 0;
        const wait =
          next === undefined || heldBack
            ? this.idleMs
            : Math.max(0, Math.min(this.idleMs, next - this.clock.now()));
        await this.pause(wait, 'wake');
      }
      if (!this.urgent && this.lingerMs > 0 && !signal.aborted) await this.pause(this.lingerMs, 'linger');
      if (this.finalLingerMs > 0 && !signal.aborted) await this.pause(this.finalLingerMs, 'fixed');
    }
  }

  /**
   * Waits `ms`. `wake`: a notify() ends the wait early; `linger`: an urgent notify() does;
   * `fixed`: nothing but stop(), which ends every wait.
   */
  private pause(ms: number, mode: 'wake' | 'linger' | 'fixed'): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.controller.signal;
      signal.addEventListener('abort', done, { once: true });
      this.wake = mode === 'wake' ? done : undefined;
      this.endLinger = mode === 'linger' ? done : undefined;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    }).finally(() => {
      this.wake = undefined;
      this.endLinger = undefined;
    });
  }
}
