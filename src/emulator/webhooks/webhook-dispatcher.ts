/**
 * The webhook delivery worker. It reads due deliveries from the SQLite queue and sends them in
 * the background, at most `perEndpoint` at a time to one endpoint (so a slow receiver holds up
 * only itself) and `maxInFlight` in all. A failed attempt is rescheduled with jittered
 * exponential backoff for three days after the first attempt, then marked failed; failed
 * events are dropped 30 days after their first attempt (webhook-retry-rules.ts). Time comes from
 * the injected clock; a real timer only wakes the worker (every `pollMs` at most). Due
 * deliveries are read ahead in batches (webhook-read-ahead.ts). Outcomes of attempts are written
 * in batches, one transaction each: at FLUSH_BATCH outcomes (on the next turn of the event loop,
 * after the sends that the last answers started went out), FLUSH_DELAY_MS after the first
 * unwritten one, before a read from the start of an endpoint's queue, at idle() and at stop();
 * until written, an attempted delivery is never started again. The queue itself never
 * lives in memory: an attempt cut off by stop() stays due and is sent again, and only a crash
 * inside the short write window can send a delivered event a second time.
 * The creator calls start() and, before closing the database, stop().
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { AttemptOutcome, DueDelivery, WebhookDeliveryRepo } from './webhook-delivery-repo.js';
import { DueReadAhead } from './webhook-read-ahead.js';
import { FAILED_EVENT_STORAGE_MS, nextAfterFailure } from './webhook-retry-rules.js';
import type { DeliveryTranscript, WebhookSender } from './webhook-sender.js';
import type { WebhookTargets } from './webhook-targets.js';

/** Due deliveries read per query and endpoint; 128 keeps one read under a millisecond. */
const READ_AHEAD = 128;
/** Unwritten outcomes that start a write at once. */
const FLUSH_BATCH = 256;
/** Longest wait before outcomes are written, in real ms. */
const FLUSH_DELAY_MS = 50;
/** How long stop() lets attempts in flight finish before cutting them off, in real ms. */
const STOP_GRACE_MS = 1000;
/** Tuning of the worker. */
export interface DispatcherOptions {
  /** Concurrent deliveries to one endpoint (default 4). */
  perEndpoint?: number;
  /** Concurrent deliveries in all (default 64). */
  maxInFlight?: number;
  /** Longest sleep between looks at the queue, in real ms (default 1000). */
  pollMs?: number;
  /** Random source in [0, 1) for the jitter. */
  random?: () => number;
}

/** Delivers queued webhook events. */
export class WebhookDispatcher {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpointCount = new Map<string, number>();
  /** Due deliveries read ahead per endpoint (not started yet), so a completion starts the next without a query. */
  private readonly readAhead: DueReadAhead;
  /** Outcomes of attempts waiting to be written in one transaction (see flush). */
  private outcomes: AttemptOutcome[] = [];
  /** Keys of those outcomes: attempted, not written yet, never started again meanwhile. */
  private readonly unwrittenKeys = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushSoon: NodeJS.Immediate | undefined;
  /** Callers of idle() waiting for the last delivery in flight to end. */
  private idleWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private kicked = false;
  private running = false;
  private lastPurge = Number.NEGATIVE_INFINITY;
  private readonly perEndpoint: number;
  private readonly maxInFlight: number;
  private readonly pollMs: number;
  private readonly random: () => number;

  constructor(
    private readonly deliveries: WebhookDeliveryRepo,
    private readonly targets: WebhookTargets,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.perEndpoint = options.perEndpoint ?? 4;
    this.maxInFlight = options.maxInFlight ?? 64;
    this.pollMs = options.pollMs ?? 1000;
    this.random = options.random ?? (() => randomInt(0, 1 << 30) / (1 << 30));
    this.readAhead = new DueReadAhead(deliveries, clock, READ_AHEAD + this.perEndpoint, this.perEndpoint);
  }

  /** Starts looking at the queue. */
  start(): void {
    this.running = true;
    this.kick();
  }

  /** Looks at the queue soon (after new events, or after the clock moved in tests). */
  kick(): void {
    if (!this.running || this.kicked) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      this.pump();
    });
  }

  /** Resolves once nothing is due and nothing is in flight (tests and benchmarks wait on it). */
  async idle(): Promise<void> {
    for (;;) {
      this.pump();
      if (this.inFlight.size === 0) {
        this.flush();
        return;
      }
      // Woken when the last delivery in flight ends, not at every one (each wake reads the queue).
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  /**
   * Stops the worker: attempts in flight get STOP_GRACE_MS to finish (so an answered delivery is
   * recorded, not sent again by the next start); those still going then are cut off (the sender
   * is destroyed) and stay due. Every outcome is written before it resolves.
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    if (this.inFlight.size > 0) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(this.inFlight.values()),
        new Promise((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(grace);
    }
    await this.sender.destroy();
    await Promise.allSettled(this.inFlight.values());
    this.flush();
  }

  /** Forgets what is read ahead for an endpoint (after it, its events or its retry-all changed). */
  endpointChanged(endpointId: string): void {
    this.readAhead.forget(endpointId);
    this.targets.forget(endpointId);
    this.kick();
  }

  /** Sends one delivery now and records the outcome (the manual retry); undefined when it is in flight. */
  async attemptNow(delivery: DueDelivery): Promise<DeliveryTranscript | undefined> {
    const key = keyOf(delivery);
    if (this.inFlight.has(key)) return undefined;
    this.readAhead.forget(delivery.endpointId);
    let transcript: DeliveryTranscript | undefined;
    const run = this.attempt(delivery).then((t) => {
      transcript = t;
    });
    this.track(key, delivery.endpointId, run);
    await run;
    this.flush();
    return transcript;
  }

  private pump(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const now = this.clock.now();
    this.purge(now);
    for (const endpointId of this.deliveries.dueEndpoints(now)) this.fill(endpointId);
    this.timer = setTimeout(() => this.pump(), this.pollMs);
    this.timer.unref();
  }

  /** Starts the endpoint's next due deliveries up to its limit. */
  private fill(endpointId: string): void {
    while (
      (this.perEndpointCount.get(endpointId) ?? 0) < this.perEndpoint &&
      this.inFlight.size < this.maxInFlight
    ) {
      const next = this.readAhead.next(endpointId, this.busy, this.writeOutcomes);
      if (!next) return;
      this.startDelivery(next);
    }
  }

  /** In flight, or its outcome not written yet. */
  private readonly busy = (d: DueDelivery): boolean => {
    const key = keyOf(d);
    return this.inFlight.has(key) || this.unwrittenKeys.has(key);
  };

  private readonly writeOutcomes = (): void => this.flush();

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  private purge(now: number): void {
    if (now - this.lastPurge < 60_000) return;
    this.lastPurge = now;
    const purged = this.deliveries.purgeFailedBefore(now - FAILED_EVENT_STORAGE_MS);
    if (purged > 0) this.logger.info({ purged }, 'dropped failed webhook events older than 30 days');
  }

  private startDelivery(delivery: DueDelivery): void {
    const key = keyOf(delivery);
    const { endpointId } = delivery;
    const run = this.attempt(delivery).then(
      () => this.settled(key, endpointId),
      (error: unknown) => {
        if (this.running) this.logger.error({ err: error, endpoint: endpointId }, 'webhook delivery crashed');
        this.settled(key, endpointId);
      },
    );
    this.started(key, endpointId, run);
  }

  private track(key: string, endpointId: string, run: Promise<void>): void {
    this.started(key, endpointId, run);
    run.then(
      () => this.settled(key, endpointId),
      () => this.settled(key, endpointId),
    );
  }

  private started(key: string, endpointId: string, run: Promise<void>): void {
    this.inFlight.set(key, run);
    this.perEndpointCount.set(endpointId, (this.perEndpointCount.get(endpointId) ?? 0) + 1);
  }

  /** A delivery ended: the endpoint's next one starts, and idle() callers wake when none is left. */
  private settled(key: string, endpointId: string): void {
    const wasFull = this.inFlight.size >= this.maxInFlight;
    this.inFlight.delete(key);
    const left = (this.perEndpointCount.get(endpointId) ?? 1) - 1;
    if (left > 0) this.perEndpointCount.set(endpointId, left);
    else this.perEndpointCount.delete(endpointId);
    if (this.running) this.fill(endpointId);
    if (this.inFlight.size === 0) this.wakeIdleWaiters();
    if (!this.running) return;
    // Other endpoints wait only when the global limit was reached.
    if (wasFull || (this.perEndpointCount.get(endpointId) ?? 0) === 0) this.kick();
  }

  /** Sends and records; undefined when the endpoint is gone. Rejects when stop() cut it off. */
  private async attempt(delivery: DueDelivery): Promise<DeliveryTranscript | undefined> {
    const target = this.targets.get(delivery.endpointId);
    if (!target) return undefined;
    const transcript = await this.sender.send({ ...target, body: delivery.body });
    this.record(delivery, transcript);
    return transcript;
  }

  /** Writes the waiting outcomes in one transaction. */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.flushSoon) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    if (this.outcomes.length === 0) return;
    const done = this.outcomes;
    this.outcomes = [];
    this.deliveries.recordOutcomes(done);
    for (const o of done) this.unwrittenKeys.delete(keyOf(o));
  }

  private record(d: DueDelivery, t: DeliveryTranscript): void {
    const outcome: AttemptOutcome = {
      endpointId: d.endpointId,
      eventId: d.eventId,
      status: d.status,
      inRetryAll: d.inRetryAll,
    };
    this.outcomes.push(outcome);
    this.unwrittenKeys.add(keyOf(d));
    this.scheduleFlush();
    if (t.status === 'succeeded') return;
    const failed = nextAfterFailure(d, this.clock.now(), this.random);
    const error = t.error ?? 'timeout';
    outcome.failure = { ...failed, error, responseStatusCode: t.response_status_code ?? null };
    this.logger.info(
      {
        endpoint: d.endpointId,
        event: d.eventId,
        error,
        status: t.response_status_code,
        detail: t.detail,
        next: failed.status,
      },
      'webhook delivery failed',
    );
  }

  private scheduleFlush(): void {
    if (this.outcomes.length >= FLUSH_BATCH) this.flushSoon ??= setImmediate(this.writeOutcomes);
    else this.flushTimer ??= setTimeout(this.writeOutcomes, FLUSH_DELAY_MS);
  }
}

function keyOf(d: { endpointId: string; eventId: string }): string {
  return `${d.endpointId} ${d.eventId}`;
}
