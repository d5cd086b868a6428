/**
 * The webhook delivery worker. It reads due deliveries from the SQLite queue and sends them in
 * the background, at most `perEndpoint` at a time to one endpoint, each endpoint over its own
 * connections (webhook-sender.ts), so a slow receiver holds up only itself. `maxInFlight` bounds
 * the deliveries in all, except that an endpoint below its fair share (`maxInFlight` divided by
 * the endpoints with work, at least one) may always start another: stuck receivers of one
 * tenant, however many, cannot keep another endpoint from its turn. Turns
 * go round-robin across organizations, then across their endpoints (webhook-fair-order.ts); when
 * the limit was reached, a freed place goes to the next endpoint in turn, not back to the one
 * that freed it. A failed attempt is rescheduled with jittered
 * exponential backoff for three days after the first attempt, then marked failed; failed
 * events are dropped 30 days after their first attempt (webhook-retry-rules.ts). Time comes from
 * the injected clock; a real timer only wakes the worker (every `pollMs` at most). Due
 * deliveries are read ahead in batches (webhook-read-ahead.ts). Outcomes of attempts are written
 * in batches, one transaction each (webhook-outcome-writer.ts), and also before a read from the
 * start of an endpoint's queue, at idle() and at stop();
 * until written, an attempted delivery is never started again. The queue itself never
 * lives in memory: an attempt cut off by stop() stays due and is sent again, and only a crash
 * inside the short write window can send a delivered event a second time.
 * The creator calls start() and, before closing the database, stop().
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { AttemptOutcome, DueDelivery, WebhookDeliveryRepo } from './webhook-delivery-repo.js';
import { fairOrder } from './webhook-fair-order.js';
import { DueReadAhead } from './webhook-read-ahead.js';
import { WebhookOutcomeWriter } from './webhook-outcome-writer.js';
import { FAILED_EVENT_STORAGE_MS } from './webhook-retry-rules.js';
import type { WebhookSender } from './webhook-sender.js';
import type { DeliveryTranscript } from './webhook-transcript.js';
import type { WebhookTargets } from './webhook-targets.js';

/** Due deliveries read per query and endpoint; 128 keeps one read under a millisecond. */
const READ_AHEAD = 128;
/** How long stop() lets attempts in flight finish before cutting them off, in real ms. */
const STOP_GRACE_MS = 1000;
/** Tuning of the worker. */
export interface DispatcherOptions {
  /** Concurrent deliveries to one endpoint (default 4). */
  perEndpoint?: number;
  /** Concurrent deliveries in all, beyond which only endpoints below their fair share start more (default 256). */
  maxInFlight?: number;
  /** Longest sleep between looks at the queue, in real ms (default 1000). */
  pollMs?: number;
  /** Random source in [0, 1) for the jitter. */
  random?: () => number;
}

/** Delivers queued webhook events. */
/** Sees a receiver's answer before it is recorded and returns the answer to record instead. */
export type WebhookAnswerFilter = (
  endpointId: string,
  transcript: DeliveryTranscript,
) => Promise<DeliveryTranscript>;

export class WebhookDispatcher {
  /**
   * Per endpoint, its deliveries in flight and those whose outcome is not written yet, by event
   * id (the id strings come from the queue read and are hashed once; no key is built per lookup).
   */
  private readonly work = new Map<string, EndpointWork>();
  /** Deliveries in flight in all. */
  private inFlightCount = 0;
  /** Due deliveries read ahead per endpoint (not started yet), so a completion starts the next without a query. */
  private readonly readAhead: DueReadAhead;
  /** Outcomes of attempts waiting to be written in one transaction (webhook-outcome-writer.ts). */
  private readonly outcomes: WebhookOutcomeWriter;
  /** Callers of idle() waiting for the last delivery in flight to end. */
  private idleWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private kicked = false;
  private running = false;
  private lastPurge = Number.NEGATIVE_INFINITY;
  /** Counts looks at the queue; rotates whose turn comes first. */
  private turn = 0;
  private readonly perEndpoint: number;
  private readonly maxInFlight: number;
  private readonly pollMs: number;
  private answerFilter: WebhookAnswerFilter = async (_endpointId, transcript) => transcript;

  constructor(
    private readonly deliveries: WebhookDeliveryRepo,
    private readonly targets: WebhookTargets,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.perEndpoint = options.perEndpoint ?? 4;
    this.maxInFlight = options.maxInFlight ?? 256;
    this.pollMs = options.pollMs ?? 1000;
    const random = options.random ?? (() => randomInt(0, 1 << 30) / (1 << 30));
    this.outcomes = new WebhookOutcomeWriter(deliveries, clock, logger, random, (written) =>
      this.written(written),
    );
    this.readAhead = new DueReadAhead(deliveries, clock, READ_AHEAD + this.perEndpoint, this.perEndpoint);
  }

  /** Installs the filter of receivers' answers (the sandbox's webhook faults; a later call replaces it). */
  setAnswerFilter(filter: WebhookAnswerFilter): void {
    this.answerFilter = filter;
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
      if (this.inFlightCount === 0) {
        this.outcomes.flush();
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
    if (this.inFlightCount > 0) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(this.runs()),
        new Promise((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(grace);
    }
    await this.sender.destroy();
    await Promise.allSettled(this.runs());
    this.outcomes.flush();
  }

  /**
   * Events were queued for these endpoints: looks at the queue soon, unless each of them has all
   * its deliveries in flight already (a slow receiver), as the end of one of those reads on.
   */
  queued(endpointIds: readonly string[]): void {
    for (const id of endpointIds)
      if ((this.work.get(id)?.inFlight.size ?? 0) < this.perEndpoint) {
        this.kick();
        return;
      }
  }

  /** Forgets what is read ahead for an endpoint (after it, its events or its retry-all changed). */
  endpointChanged(endpointId: string): void {
    this.readAhead.forget(endpointId);
    this.targets.forget(endpointId);
    this.sender.release(endpointId);
    this.kick();
  }

  /** Sends one delivery now and records the outcome (the manual retry); undefined when it is in flight. */
  async attemptNow(delivery: DueDelivery): Promise<DeliveryTranscript | undefined> {
    const work = this.workOf(delivery.endpointId);
    if (work.inFlight.has(delivery.eventId)) return undefined;
    this.readAhead.forget(delivery.endpointId);
    let transcript: DeliveryTranscript | undefined;
    const run = this.attempt(delivery).then((t) => {
      transcript = t;
    });
    this.started(work, delivery.eventId, run);
    run.then(
      () => this.settled(work, delivery),
      () => this.settled(work, delivery),
    );
    await run;
    this.outcomes.flush();
    return transcript;
  }

  private pump(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const now = this.clock.now();
    this.sender.abortOverdue();
    this.purge(now);
    this.turn += 1;
    // Rounds of one start per endpoint, in fair order, until no endpoint can start another.
    let order = fairOrder(this.deliveries.dueEndpoints(now), this.turn);
    while (order.length > 0) order = order.filter((endpointId) => this.startNext(endpointId));
    for (const [endpointId, work] of this.work) this.dropIfIdle(endpointId, work);
    this.timer = setTimeout(() => this.pump(), this.pollMs);
    this.timer.unref();
  }

  /** Starts the endpoint's next due deliveries up to its limit. */
  private fill(endpointId: string): void {
    while (this.startNext(endpointId));
    const work = this.work.get(endpointId);
    if (work) this.dropIfIdle(endpointId, work);
  }

  /**
   * Starts the endpoint's next due delivery if it may have one more in flight: below
   * `perEndpoint`, and below `maxInFlight` in all unless it is below its fair share. True if started.
   */
  private startNext(endpointId: string): boolean {
    const work = this.workOf(endpointId);
    const share = Math.max(1, Math.floor(this.maxInFlight / this.work.size));
    const mayStart =
      work.inFlight.size < this.perEndpoint &&
      (work.inFlight.size < share || this.inFlightCount < this.maxInFlight);
    if (!mayStart) return false;
    const next = this.readAhead.next(endpointId, this.busy, this.outcomes.flush);
    if (!next) return false;
    this.startDelivery(work, next);
    return true;
  }

  private workOf(endpointId: string): EndpointWork {
    let work = this.work.get(endpointId);
    if (!work) {
      work = { inFlight: new Map(), unwritten: new Set() };
      this.work.set(endpointId, work);
    }
    return work;
  }

  /** Every delivery in flight. */
  private runs(): Promise<void>[] {
    return [...this.work.values()].flatMap((w) => [...w.inFlight.values()]);
  }

  /** In flight, or its outcome not written yet. */
  private readonly busy = (d: DueDelivery): boolean => {
    const work = this.work.get(d.endpointId);
    return work !== undefined && (work.inFlight.has(d.eventId) || work.unwritten.has(d.eventId));
  };

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

  private startDelivery(work: EndpointWork, delivery: DueDelivery): void {
    const run = this.attempt(delivery).then(
      () => this.settled(work, delivery),
      (error: unknown) => {
        if (this.running)
          this.logger.error({ err: error, endpoint: delivery.endpointId }, 'webhook delivery crashed');
        this.settled(work, delivery);
      },
    );
    this.started(work, delivery.eventId, run);
  }

  private started(work: EndpointWork, eventId: string, run: Promise<void>): void {
    work.inFlight.set(eventId, run);
    this.inFlightCount += 1;
  }

  /** A delivery ended: the endpoint's next one starts, and idle() callers wake when none is left. */
  private settled(work: EndpointWork, { endpointId, eventId }: DueDelivery): void {
    const wasFull = this.inFlightCount >= this.maxInFlight;
    if (work.inFlight.delete(eventId)) this.inFlightCount -= 1;
    // A place freed under the global limit goes to whoever's turn is next (the kick below).
    if (this.running && !wasFull) this.fill(endpointId);
    else this.dropIfIdle(endpointId, work);
    if (this.inFlightCount === 0) this.wakeIdleWaiters();
    if (!this.running) return;
    if (wasFull || work.inFlight.size === 0) this.kick();
  }

  /** Sends and records; undefined when the endpoint is gone. Rejects when stop() cut it off. */
  private async attempt(delivery: DueDelivery): Promise<DeliveryTranscript | undefined> {
    const target = this.targets.get(delivery.endpointId);
    if (!target) return undefined;
    const transcript = await this.answerFilter(
      delivery.endpointId,
      await this.sender.send(target, delivery.body),
    );
    this.record(delivery, transcript);
    return transcript;
  }

  /** Written outcomes: their deliveries may be read and started again. */
  private written(done: readonly AttemptOutcome[]): void {
    for (const o of done) {
      const work = this.work.get(o.endpointId);
      if (!work) continue;
      work.unwritten.delete(o.eventId);
      this.dropIfIdle(o.endpointId, work);
    }
  }

  /** Forgets an endpoint's bookkeeping once nothing of it is in flight or unwritten. */
  private dropIfIdle(endpointId: string, work: EndpointWork): void {
    if (work.inFlight.size === 0 && work.unwritten.size === 0 && this.work.get(endpointId) === work)
      this.work.delete(endpointId);
  }

  private record(d: DueDelivery, t: DeliveryTranscript): void {
    this.outcomes.add(d, t);
    this.workOf(d.endpointId).unwritten.add(d.eventId);
  }
}

/** One endpoint's deliveries in flight (by event id) and those attempted whose outcome is not written yet. */
interface EndpointWork {
  inFlight: Map<string, Promise<void>>;
  unwritten: Set<string>;
}
