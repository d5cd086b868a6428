/**
 * Turns job outcomes into webhook events: JobService calls jobEnded inside the transaction that
 * stores a job's final state; the publisher builds the event content (data protection settings
 * applied), stores it with one queued delivery per enabled endpoint subscribed to the topic,
 * and wakes the dispatcher, which sends after the transaction has committed. Nothing is sent
 * here, so the print path only pays for a few inserts. No resources to clean up.
 */
import { randomInt } from 'node:crypto';
import { v7 as uuidV7 } from 'uuid';
import type { Clock } from '../../lib/clock.js';
import type { JobOutcomeListener } from '../jobs/job-outcomes.js';
import type { JobRecord } from '../jobs/job-repo.js';
import type { EmulatorStore } from '../store/emulator-store.js';
import { type FinishedJobFacts, buildEvent, topicOf } from './webhook-event-content.js';

/**
 * A new event id: a UUID of version 7, which begins with the time in ms (then random bits, and
 * increasing within one process). The queue's indexes on event ids then grow and shrink at one
 * end like the queue itself; random (version 4) ids scattered every insert and delete over the
 * whole index, which made each written batch rewrite most of its pages.
 */
export function newEventId(): string {
  return uuidV7();
}

/** Publishes job outcomes to the webhook queue. */
export class WebhookPublisher implements JobOutcomeListener {
  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    /** Called after an event was queued (the dispatcher's kick). */
    private readonly queued: () => void,
    private readonly randomDigit: () => number = () => randomInt(0, 10),
  ) {}

  /** Queues the job's event for every subscribed endpoint (nothing when there is none). */
  jobEnded(job: JobRecord): void {
    const outcome = job.state === 'completed' ? 'succeeded' : 'failed';
    const topic = topicOf(outcome);
    const endpoints = this.store.webhookEndpoints.subscribers(job.organizationId, topic);
    if (endpoints.length === 0) return;
    const now = this.clock.now();
    const eventId = newEventId();
    const settings = this.store.webhookEndpoints.settings(job.organizationId);
    const body = buildEvent(eventId, now, this.factsOf(job, outcome), settings, this.randomDigit);
    this.store.webhookDeliveries.enqueue(
      { eventId, organizationId: job.organizationId, topic, createdAt: now, body: JSON.stringify(body) },
      endpoints.map((e) => e.id),
      now,
    );
    this.queued();
  }

  private factsOf(job: JobRecord, outcome: FinishedJobFacts['outcome']): FinishedJobFacts {
    const printer = this.store.printers.findById(job.printerId);
    const connectorId = job.claimedBy ?? printer?.connectorId ?? '';
    const connector = this.store.connectors.findById(connectorId);
    const user = this.store.users.findById(job.userId);
    return {
      jobId: job.id,
      createdAt: job.createdAt,
      outcome,
      ticket: job.ticket,
      fileName: job.file.name,
      pagesPrinted: job.pagesPrinted,
      printer: { id: job.printerId, name: printer?.name ?? '' },
      connector: { id: connectorId, name: connector?.readableName ?? '' },
      user: user
        ? { id: user.id, email: user.email, name: `${user.firstName} ${user.lastName}`.trim() }
        : { id: job.userId, email: '', name: '' },
    };
  }
}
