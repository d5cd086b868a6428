/**
 * The outcomes of webhook attempts, written to the delivery queue in batches of one transaction
 * each (for the dispatcher, webhook-dispatcher.ts): at FLUSH_BATCH outcomes on the next turn of the
 * event loop (after the sends that the last answers started went out), FLUSH_DELAY_MS after the
 * first unwritten one, or whenever the dispatcher asks (flush()). A failed attempt's outcome carries
 * its next try or its end (webhook-retry-rules.ts) and is logged. Holds at most two timers, cleared
 * by flush(); the dispatcher flushes before it stops.
 */
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { AttemptOutcome, DueDelivery, WebhookDeliveryRepo } from './webhook-delivery-repo.js';
import { nextAfterFailure } from './webhook-retry-rules.js';
import type { DeliveryTranscript } from './webhook-transcript.js';

/** Outcomes that make a write at once (on the next turn of the event loop). */
const FLUSH_BATCH = 256;
/** Longest wait of an outcome before it is written. */
const FLUSH_DELAY_MS = 50;

/** Collects attempt outcomes and writes them in batches. */
export class WebhookOutcomeWriter {
  private outcomes: AttemptOutcome[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushSoon: NodeJS.Immediate | undefined;

  /** `onWritten` hears of every batch once it is in the database. */
  constructor(
    private readonly deliveries: WebhookDeliveryRepo,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly random: () => number,
    private readonly onWritten: (written: readonly AttemptOutcome[]) => void,
  ) {}

  /** Queues the outcome of an attempt at `d` that ended with `t`. */
  add(d: DueDelivery, t: DeliveryTranscript): void {
    const outcome: AttemptOutcome = {
      endpointId: d.endpointId,
      eventId: d.eventId,
      status: d.status,
      inRetryAll: d.inRetryAll,
    };
    this.outcomes.push(outcome);
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

  /** Writes the waiting outcomes in one transaction (nothing when none waits). */
  readonly flush = (): void => {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.flushSoon) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    if (this.outcomes.length === 0) return;
    const done = this.outcomes;
    this.outcomes = [];
    this.deliveries.recordOutcomes(done);
    this.onWritten(done);
  };

  private scheduleFlush(): void {
    if (this.outcomes.length >= FLUSH_BATCH) this.flushSoon ??= setImmediate(this.flush);
    else this.flushTimer ??= setTimeout(this.flush, FLUSH_DELAY_MS);
  }
}
