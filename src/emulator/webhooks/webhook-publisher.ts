/**
 * Turns job outcomes into webhook events: JobService calls jobEnded, and LocalJobService
 * localJobEnded (a device's copy job reaching Succeeded or Failed), inside the transaction that
 * stores the final state; the publisher builds the event content (data protection settings
 * applied), stores it with one queued delivery per enabled endpoint subscribed to the topic,
 * and wakes the dispatcher, which sends after the transaction has committed. Nothing is sent
 * here, so the print path only pays for a few inserts. No resources to clean up.
 */
import { randomInt } from 'node:crypto';
import { v7 as uuidV7 } from 'uuid';
import type { Clock } from '../../lib/clock.js';
import type { UserReader } from '../accounts/accounts-face.js';
import type { ConnectorReader } from '../connectors/connectors-face.js';
import type { PrinterReader } from '../printers/printers-face.js';
import type { JobOutcomeListener } from '../jobs/job-outcomes.js';
import type { JobRecord } from '../jobs/jobs-face.js';
import type { LocalJobOutcomeListener } from '../pull/local-jobs/local-job-service.js';
import type { LocalJobRecord } from '../pull/pull-face.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { WebhookSettings } from './webhook-endpoint-repo.js';
import {
  type FinishedJobFacts,
  type WebhookEventBody,
  buildEvent,
  buildLocalCopyEvent,
  topicOf,
} from './webhook-event-content.js';

type Party = { id: string; name: string };

/** The records an event names, each read through the face of the domain that owns it. */
export interface EventSubjects {
  printers: PrinterReader;
  connectors: ConnectorReader;
  users: UserReader;
}

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
export class WebhookPublisher implements JobOutcomeListener, LocalJobOutcomeListener {
  constructor(
    private readonly store: EmulatorStore,
    private readonly subjects: EventSubjects,
    private readonly clock: Clock,
    /** Called after an event was queued for these endpoints (the dispatcher's queued()). */
    private readonly queued: (endpointIds: readonly string[]) => void,
    private readonly randomDigit: () => number = () => randomInt(0, 10),
  ) {}

  /** Queues the job's event for every subscribed endpoint (nothing when there is none). */
  jobEnded(job: JobRecord): void {
    const outcome = job.state === 'completed' ? 'succeeded' : 'failed';
    this.publish(job.organizationId, outcome, (eventId, now, settings) => {
      const printer = this.subjects.printers.findById(job.printerId);
      const facts: FinishedJobFacts = {
        jobId: job.id,
        createdAt: job.createdAt,
        outcome,
        ticket: job.ticket,
        fileName: job.file.name,
        pagesPrinted: job.pagesPrinted,
        printer: { id: job.printerId, name: printer?.name ?? '' },
        connector: this.connector(job.claimedBy ?? printer?.connectorId ?? ''),
        user: this.user(job.userId),
        ...(job.message ? { failureReason: job.message } : {}),
      };
      return buildEvent(eventId, now, facts, settings, this.randomDigit);
    });
  }

  /** Queues the event of a local copy job that reached Succeeded or Failed. */
  localJobEnded(job: LocalJobRecord): void {
    if (job.state !== 'Succeeded' && job.state !== 'Failed') return;
    const outcome = job.state === 'Succeeded' ? 'succeeded' : 'failed';
    this.publish(job.organizationId, outcome, (eventId, now, settings) => {
      const printer = this.subjects.printers.findById(job.printerId);
      const facts = {
        jobId: job.id,
        createdAt: job.createdAt,
        outcome,
        fields: job.fields,
        printer: { id: job.printerId, name: printer?.name ?? '' },
        connector: this.connector(printer?.connectorId ?? ''),
        user: this.user(job.userId),
      } as const;
      return buildLocalCopyEvent(eventId, now, facts, settings, this.randomDigit);
    });
  }

  private publish(
    organizationId: string,
    outcome: FinishedJobFacts['outcome'],
    build: (eventId: string, now: number, settings: WebhookSettings) => WebhookEventBody,
  ): void {
    const topic = topicOf(outcome);
    const endpointIds = this.store.webhookEndpoints.subscriberIds(organizationId, topic);
    if (endpointIds.length === 0) return;
    const now = this.clock.now();
    const eventId = newEventId();
    const body = build(eventId, now, this.store.webhookEndpoints.settings(organizationId));
    this.store.webhookDeliveries.enqueue(
      { eventId, topic, createdAt: now, body: JSON.stringify(body) },
      endpointIds,
      now,
    );
    this.queued(endpointIds);
  }

  private connector(id: string): Party {
    return { id, name: this.subjects.connectors.findById(id)?.readableName ?? '' };
  }

  private user(id: string): FinishedJobFacts['user'] {
    const user = this.subjects.users.findById(id);
    return user
      ? { id: user.id, email: user.email, name: `${user.firstName} ${user.lastName}`.trim() }
      : { id, email: '', name: '' };
  }
}
