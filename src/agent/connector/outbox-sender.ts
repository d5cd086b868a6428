/**
 * Delivers the outbox to the cloud: the head event of each job, in seq order, retried with
 * backoff when the cloud is unreachable or refuses; a row leaves the outbox only when the cloud
 * acknowledged it. start() runs the loop; notify() wakes it after an add; stop() ends it.
 */
import type { Clock } from '../../lib/clock.js';
import { errorMessage, isRetryable } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { JobEvent } from '../../protocol/connector-channel.js';
import type { Outbox, PendingEvent } from '../../store/outbox.js';

/** Events posted at once (heads of different jobs); more would only queue at the cloud. */
const MAX_IN_FLIGHT = 8;

/** Posts one event; throws on failure. */
export type PostEvent = (jobId: string, event: JobEvent, signal: AbortSignal) => Promise<void>;

/** The delivery loop over one Outbox. */
export class OutboxSender {
  private controller = new AbortController();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private notified = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly post: PostEvent,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly idleMs = 5000,
  ) {}

  /** Starts delivering in the background. */
  start(): void {
    this.controller = new AbortController();
    this.loop = this.run(this.controller.signal);
  }

  /** Wakes the loop (an event was added). */
  notify(): void {
    this.notified = true;
    this.wake?.();
  }

  /**
   * Delivers everything due now; returns how many were delivered. The due rows are the head
   * event of each job, so they go out concurrently (order within a job is kept: a job's next
   * event becomes due only once its head was acknowledged), at most MAX_IN_FLIGHT at a time.
   */
  async flush(signal: AbortSignal = this.controller.signal): Promise<number> {
    let delivered = 0;
    for (;;) {
      const due = this.outbox.due();
      if (due.length === 0 || signal.aborted) return delivered;
      let progressed = 0;
      for (let i = 0; i < due.length && !signal.aborted; i += MAX_IN_FLIGHT) {
        const batch = due.slice(i, i + MAX_IN_FLIGHT);
        progressed += (await Promise.all(batch.map((item) => this.deliver(item, signal)))).filter(
          Boolean,
        ).length;
      }
      delivered += progressed;
      if (progressed === 0 || signal.aborted) return delivered;
    }
  }

  private async deliver(item: PendingEvent, signal: AbortSignal): Promise<boolean> {
    try {
      await this.post(item.jobId, item.event, signal);
      this.outbox.delivered(item.id);
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      const retryAfter = isRetryable(error) ? error.retryAfterMs : undefined;
      this.outbox.failed(item.id, errorMessage(error), retryAfter);
      this.logger.warn(
        { job: item.jobId, seq: item.event.seq, error: errorMessage(error) },
        'event delivery failed',
      );
      return false;
    }
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
      await this.flush(signal);
      if (this.notified) continue;
      if (signal.aborted) return;
      const next = this.outbox.nextDueAt();
      const wait =
        next === undefined ? this.idleMs : Math.max(0, Math.min(this.idleMs, next - this.clock.now()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
