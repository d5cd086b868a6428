/**
 * The webhook delivery worker. It reads due deliveries from the SQLite queue and sends them in
 * the background, at most `perEndpoint` at a time to one endpoint (so a slow receiver holds up
 * only itself) and `maxInFlight` in all. A failed attempt is rescheduled with jittered
 * exponential backoff for three days after the first attempt, then marked failed; failed
 * events are dropped 30 days after their first attempt. Time comes from the injected clock;
 * a real timer only wakes the worker (every `pollMs` at most). Nothing is kept in memory that a
 * restart would lose: an attempt cut off by stop() stays due and is sent again.
 * The creator calls start() and, before closing the database, stop().
 */
import { randomInt } from 'node:crypto';
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { DeliveryRecord, WebhookDeliveryRepo } from './webhook-delivery-repo.js';
import type { WebhookEndpointRecord, WebhookEndpointRepo } from './webhook-endpoint-repo.js';
import type { SecretBox } from './webhook-secret-box.js';
import type { DeliveryTranscript, WebhookSender } from './webhook-sender.js';

const DAY_MS = 24 * 3600_000;
/** Automatic retries stop this long after the first attempt (the spec: three days). */
export const RETRY_WINDOW_MS = 3 * DAY_MS;
/** Failed events are kept this long after their first attempt (the spec: 30 days). */
export const FAILED_EVENT_STORAGE_MS = 30 * DAY_MS;
/** One minute, doubling, at most six hours apart, each delay drawn from its upper 80 %. */
export const WEBHOOK_BACKOFF: BackoffPolicy = {
  initialMs: 60_000,
  maxMs: 6 * 3600_000,
  factor: 2,
  jitter: 0.2,
};

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
  private readonly abort = new AbortController();
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
    private readonly endpoints: WebhookEndpointRepo,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.perEndpoint = options.perEndpoint ?? 4;
    this.maxInFlight = options.maxInFlight ?? 64;
    this.pollMs = options.pollMs ?? 1000;
    this.random = options.random ?? (() => randomInt(0, 1 << 30) / (1 << 30));
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
      if (this.inFlight.size === 0) return;
      await Promise.race(this.inFlight.values());
    }
  }

  /** Stops the worker; attempts in flight are cut off and stay due for the next start. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.abort.abort();
    await Promise.allSettled(this.inFlight.values());
  }

  /** Sends one delivery now and records the outcome (the manual retry); undefined when it is in flight. */
  async attemptNow(delivery: DeliveryRecord): Promise<DeliveryTranscript | undefined> {
    const key = keyOf(delivery);
    if (this.inFlight.has(key)) return undefined;
    let transcript: DeliveryTranscript | undefined;
    const run = this.attempt(delivery).then((t) => {
      transcript = t;
    });
    this.track(key, delivery.endpointId, run);
    await run;
    return transcript;
  }

  /** Whether a delivery of this endpoint and event is being sent right now. */
  isInFlight(endpointId: string, eventId: string): boolean {
    return this.inFlight.has(`${endpointId} ${eventId}`);
  }

  private pump(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const now = this.clock.now();
    this.purge(now);
    for (const endpointId of this.deliveries.dueEndpoints(now)) {
      const busy = this.perEndpointCount.get(endpointId) ?? 0;
      const free = Math.min(this.perEndpoint - busy, this.maxInFlight - this.inFlight.size);
      if (free <= 0) continue;
      const due = this.deliveries.dueFor(endpointId, now, free + busy);
      for (const d of due.filter((x) => !this.inFlight.has(keyOf(x))).slice(0, free)) this.startDelivery(d);
    }
    this.timer = setTimeout(() => this.pump(), this.pollMs);
    this.timer.unref();
  }

  private purge(now: number): void {
    if (now - this.lastPurge < 60_000) return;
    this.lastPurge = now;
    const purged = this.deliveries.purgeFailedBefore(now - FAILED_EVENT_STORAGE_MS);
    if (purged > 0) this.logger.info({ purged }, 'dropped failed webhook events older than 30 days');
  }

  private startDelivery(delivery: DeliveryRecord): void {
    const run = this.attempt(delivery).then(
      () => undefined,
      (error: unknown) => {
        if (!this.abort.signal.aborted)
          this.logger.error({ err: error, endpoint: delivery.endpointId }, 'webhook delivery crashed');
      },
    );
    this.track(keyOf(delivery), delivery.endpointId, run);
  }

  private track(key: string, endpointId: string, run: Promise<void>): void {
    this.inFlight.set(key, run);
    this.perEndpointCount.set(endpointId, (this.perEndpointCount.get(endpointId) ?? 0) + 1);
    const done = () => {
      this.inFlight.delete(key);
      const left = (this.perEndpointCount.get(endpointId) ?? 1) - 1;
      if (left > 0) this.perEndpointCount.set(endpointId, left);
      else this.perEndpointCount.delete(endpointId);
      this.kick();
    };
    run.then(done, done);
  }

  /** Sends and records; undefined when the endpoint is gone. Rejects when stop() cut it off. */
  private async attempt(delivery: DeliveryRecord): Promise<DeliveryTranscript | undefined> {
    const endpoint = this.endpoints.findById(delivery.endpointId);
    if (!endpoint) return undefined;
    const transcript = await this.sender.send({
      url: endpoint.url,
      body: delivery.body,
      ...this.credentials(endpoint),
      signal: this.abort.signal,
    });
    if (!this.deliveries.find(delivery.endpointId, delivery.eventId)) return transcript;
    this.record(delivery, transcript, this.clock.now());
    return transcript;
  }

  private credentials(endpoint: WebhookEndpointRecord): { basic?: { username: string; password: string } } {
    if (endpoint.authenticationScheme !== 'basic') return {};
    const password = endpoint.basicPasswordSealed ? this.secrets.open(endpoint.basicPasswordSealed) : '';
    return { basic: { username: endpoint.basicUsername, password } };
  }

  private record(d: DeliveryRecord, t: DeliveryTranscript, now: number): void {
    const log = this.logger.child({ endpoint: d.endpointId, event: d.eventId });
    if (t.status === 'succeeded') {
      this.deliveries.delivered(d.endpointId, d.eventId);
      log.debug({ attempts: d.attempts + 1 }, 'webhook delivered');
    } else {
      const failed = this.nextAfterFailure(d, now);
      this.deliveries.failed(d.endpointId, d.eventId, {
        ...failed,
        error: t.error ?? 'timeout',
        responseStatusCode: t.response_status_code ?? null,
      });
      log.info(
        { error: t.error, status: t.response_status_code, detail: t.detail, next: failed.status },
        'webhook delivery failed',
      );
    }
    this.deliveries.finishRetryAllIfDone(d.endpointId);
  }

  /** Pending with the next backoff while inside the 3-day window; failed (no automatic retry) after. */
  private nextAfterFailure(d: DeliveryRecord, now: number) {
    const attempts = d.attempts + 1;
    const firstAttemptAt = d.firstAttemptAt ?? now;
    const next = now + backoffDelay(WEBHOOK_BACKOFF, attempts - 1, this.random);
    const pending = d.status !== 'failed' && next <= firstAttemptAt + RETRY_WINDOW_MS;
    return {
      status: pending ? ('pending' as const) : ('failed' as const),
      attempts,
      firstAttemptAt,
      lastAttemptAt: now,
      nextAttemptAt: pending ? next : null,
    };
  }
}

function keyOf(d: { endpointId: string; eventId: string }): string {
  return `${d.endpointId} ${d.eventId}`;
}
