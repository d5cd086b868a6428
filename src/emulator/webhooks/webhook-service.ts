/**
 * WebhookService: the webhook interface of the spec for one organization at a time: endpoints
 * (create, read, list, merge-patch, delete), the endpoint test, the data protection settings,
 * the failed event list, single retry (synchronous) and retry-all (one run per endpoint). Basic
 * passwords are sealed at rest and never returned. Raises domain errors only. The dispatcher
 * and sender it uses are owned by the creator.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, NotFoundError, ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { DeliveryRecord, EventOrderKey } from './webhook-delivery-repo.js';
import type { WebhookAnswerFilter, WebhookDispatcher } from './webhook-dispatcher.js';
import { FAILED_EVENT_STORAGE_MS } from './webhook-retry-rules.js';
import type { WebhookEndpointRecord, WebhookSettings } from './webhook-endpoint-repo.js';
import {
  type EndpointDraft,
  applyEndpointPatch,
  applySettingsPatch,
  parseEndpointCreate,
  parseEndpointTest,
} from './webhook-endpoint-rules.js';
import { sampleEvent } from './webhook-event-content.js';
import type { SecretBox } from './webhook-secret-box.js';
import type { WebhookSender } from './webhook-sender.js';
import type { DeliveryTranscript } from './webhook-transcript.js';

/** An endpoint on the wire (the password is never returned; basic_password_set tells whether one is stored). */
export interface WebhookEndpointWire {
  endpoint_id: string;
  name: string;
  url: string;
  topics: string[];
  disabled: boolean;
  authentication_scheme: 'basic' | null;
  basic_username: string;
  basic_password_set: boolean;
}

/** The spec's failed event record. */
export interface FailedEventWire {
  created: string;
  event_id: string;
  topic: string;
  endpoint: { status: string; error: string; last_attempt: string; response_status_code?: number };
}

/** The spec's single retry result. */
export type RetryResult =
  | { status: 'succeeded' }
  | { status: 'failed'; error: 'timeout' }
  | { status: 'failed'; error: 'response_status_code'; response_status_code: number };

/** The endpoint on the wire. */
export function endpointToWire(e: WebhookEndpointRecord): WebhookEndpointWire {
  return {
    endpoint_id: e.id,
    name: e.name,
    url: e.url,
    topics: e.topics,
    disabled: e.disabled,
    authentication_scheme: e.authenticationScheme,
    basic_username: e.basicUsername,
    basic_password_set: e.basicPasswordSealed !== null,
  };
}

/** A failed delivery as the spec's failed event record. */
export function failedEventToWire(d: DeliveryRecord): FailedEventWire {
  return {
    created: new Date(d.eventCreatedAt).toISOString(),
    event_id: d.eventId,
    topic: d.topic,
    endpoint: {
      status: d.status,
      error: d.error ?? 'timeout',
      last_attempt: new Date(d.lastAttemptAt ?? d.eventCreatedAt).toISOString(),
      ...(d.error === 'response_status_code' && d.responseStatusCode !== null
        ? { response_status_code: d.responseStatusCode }
        : {}),
    },
  };
}

/** Webhook endpoints, settings and failed events of organizations. */
export class WebhookService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly dispatcher: WebhookDispatcher,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly randomDigit: () => number = () => randomInt(0, 10),
  ) {}

  /** Creates an endpoint from a POST body (ValidationErrors naming each bad field). */
  create(orgId: string, body: unknown): WebhookEndpointWire {
    const draft = parseEndpointCreate(body);
    this.checkAddress(draft.url);
    const now = this.clock.now();
    const record = this.toRecord(
      draft,
      { id: randomUUID(), organizationId: orgId, createdAt: now },
      null,
      now,
    );
    this.store.webhookEndpoints.save(record);
    this.logger.info({ endpoint: record.id, org: orgId }, 'webhook endpoint created');
    return endpointToWire(record);
  }

  /** A page of the organization's endpoints. */
  page(orgId: string, limit: number, offset: number): { count: number; rows: WebhookEndpointWire[] } {
    const { count, rows } = this.store.webhookEndpoints.page(orgId, limit, offset);
    return { count, rows: rows.map(endpointToWire) };
  }

  /** One endpoint of the organization. */
  get(orgId: string, id: string): WebhookEndpointWire {
    return endpointToWire(this.require(orgId, id));
  }

  /** Applies a JSON Merge Patch to an endpoint. */
  update(orgId: string, id: string, patch: unknown): WebhookEndpointWire {
    const current = this.require(orgId, id);
    const draft = applyEndpointPatch(this.draftOf(current), patch);
    if (draft.url !== current.url) this.checkAddress(draft.url);
    const record = this.toRecord(draft, current, current.basicPasswordSealed, this.clock.now());
    this.store.webhookEndpoints.save(record);
    this.dispatcher.endpointChanged(id);
    return endpointToWire(record);
  }

  /** Deletes an endpoint with its queued and failed events. */
  remove(orgId: string, id: string): void {
    this.require(orgId, id);
    // Its deliveries (each with its event) go with it (ON DELETE CASCADE).
    this.store.webhookEndpoints.delete(id);
    this.dispatcher.endpointChanged(id);
  }

  /** Sends the topic's sample event to the given URL; changes nothing stored. */
  async test(orgId: string, body: unknown): Promise<DeliveryTranscript> {
    const t = parseEndpointTest(body);
    this.checkAddress(t.url);
    const ids = {
      eventId: randomUUID(),
      jobId: randomUUID(),
      printerId: randomUUID(),
      connectorId: randomUUID(),
      userId: randomUUID(),
    };
    const event = sampleEvent(ids, this.clock.now(), t.topic, this.settings(orgId), this.randomDigit);
    const basic =
      t.authenticationScheme === 'basic'
        ? { username: t.basicUsername, password: t.basicPassword }
        : undefined;
    return this.sender.send({ url: t.url, ...(basic ? { basic } : {}) }, JSON.stringify(event), true);
  }

  /** The organization's data protection settings. */
  settings(orgId: string): WebhookSettings {
    return this.store.webhookEndpoints.settings(orgId);
  }

  /** Applies a merge patch to the data protection settings (later events only). */
  updateSettings(orgId: string, patch: unknown): WebhookSettings {
    const next = applySettingsPatch(this.settings(orgId), patch);
    this.store.webhookEndpoints.saveSettings(orgId, next);
    return next;
  }

  /** A page of the endpoint's failed events. */
  events(orgId: string, endpointId: string, order: EventOrderKey[], limit: number, offset: number) {
    this.require(orgId, endpointId);
    const { count, rows } = this.store.webhookDeliveries.failedPage(endpointId, order, limit, offset);
    return { count, rows: rows.map(failedEventToWire) };
  }

  /** One failed event of the endpoint. */
  event(orgId: string, endpointId: string, eventId: string): FailedEventWire {
    return failedEventToWire(this.requireFailed(orgId, endpointId, eventId));
  }

  /** Removes one failed event. */
  removeEvent(orgId: string, endpointId: string, eventId: string): void {
    this.requireFailed(orgId, endpointId, eventId);
    this.store.webhookDeliveries.removeFailed(endpointId, eventId);
    this.dispatcher.endpointChanged(endpointId);
  }

  /** Removes every failed event of the endpoint. */
  removeAllEvents(orgId: string, endpointId: string): void {
    this.require(orgId, endpointId);
    this.store.webhookDeliveries.removeAllFailed(endpointId);
    this.dispatcher.endpointChanged(endpointId);
  }

  /** Retries one failed event now and answers how it went (delivered events are removed). */
  async retryEvent(orgId: string, endpointId: string, eventId: string): Promise<RetryResult> {
    const delivery = this.requireFailed(orgId, endpointId, eventId);
    const transcript = await this.dispatcher.attemptNow(delivery);
    if (!transcript) throw new ConflictError(`event ${eventId} is being delivered right now`, 'event_id');
    if (transcript.status === 'succeeded') return { status: 'succeeded' };
    if (transcript.error === 'response_status_code' && transcript.response_status_code !== undefined)
      return {
        status: 'failed',
        error: 'response_status_code',
        response_status_code: transcript.response_status_code,
      };
    return { status: 'failed', error: 'timeout' };
  }

  /** Starts retrying every failed event of the endpoint; ConflictError when a run is going. */
  startRetryAll(orgId: string, endpointId: string): { created: string } {
    this.require(orgId, endpointId);
    const now = this.clock.now();
    const started = this.store.transaction(() => this.store.webhookDeliveries.startRetryAll(endpointId, now));
    if (!started)
      throw new ConflictError(`a retry of all events of endpoint ${endpointId} is running`, 'endpoint_id');
    this.store.webhookDeliveries.finishRetryAllIfDone(endpointId);
    this.dispatcher.endpointChanged(endpointId);
    return { created: new Date(now).toISOString() };
  }

  /** The running retry-all of the endpoint; NotFoundError when none runs. */
  retryAll(orgId: string, endpointId: string): { created: string } {
    this.require(orgId, endpointId);
    const run = this.store.webhookDeliveries.retryAll(endpointId);
    if (!run) throw new NotFoundError(`a running retry of all events of endpoint ${endpointId}`);
    return { created: new Date(run.createdAt).toISOString() };
  }

  /** Cancels the endpoint's retry-all; NotFoundError when none runs. */
  cancelRetryAll(orgId: string, endpointId: string): void {
    this.require(orgId, endpointId);
    const cancelled = this.store.transaction(() => this.store.webhookDeliveries.cancelRetryAll(endpointId));
    if (!cancelled) throw new NotFoundError(`a running retry of all events of endpoint ${endpointId}`);
    this.dispatcher.endpointChanged(endpointId);
  }

  /** Installs the filter of receivers' answers (the sandbox's webhook faults). */
  setAnswerFilter(filter: WebhookAnswerFilter): void {
    this.dispatcher.setAnswerFilter(filter);
  }

  /**
   * Delivers everything due now and resolves when nothing is due or in flight (for tests after
   * moving the clock, and for benchmarks); the worker does the same on its own timer.
   */
  drain(): Promise<void> {
    return this.dispatcher.idle();
  }

  private require(orgId: string, id: string): WebhookEndpointRecord {
    const endpoint = this.store.webhookEndpoints.findById(id.toLowerCase());
    if (!endpoint || endpoint.organizationId !== orgId) throw new NotFoundError(`webhook endpoint ${id}`);
    return endpoint;
  }

  /** A failed (attempted) event still inside its 30 days; older ones are dropped first. */
  private requireFailed(orgId: string, endpointId: string, eventId: string): DeliveryRecord {
    const endpoint = this.require(orgId, endpointId);
    this.store.webhookDeliveries.purgeFailedBefore(this.clock.now() - FAILED_EVENT_STORAGE_MS);
    const delivery = this.store.webhookDeliveries.find(endpoint.id, eventId.toLowerCase());
    if (!delivery || delivery.status === 'queued') throw new NotFoundError(`failed event ${eventId}`);
    return delivery;
  }

  /** A URL whose literal host is refused by the outbound address policy is a bad `url`. */
  private checkAddress(url: string): void {
    const refused = this.sender.urlRefusal(url);
    if (refused) throw new ValidationErrors([new ValidationError('url', refused)]);
  }

  private draftOf(e: WebhookEndpointRecord): EndpointDraft {
    return {
      name: e.name,
      url: e.url,
      topics: e.topics,
      disabled: e.disabled,
      authenticationScheme: e.authenticationScheme,
      basicUsername: e.basicUsername,
    };
  }

  private toRecord(
    d: EndpointDraft,
    base: { id: string; organizationId: string; createdAt: number },
    sealed: string | null,
    now: number,
  ): WebhookEndpointRecord {
    const password =
      d.basicPassword === undefined ? sealed : d.basicPassword ? this.secrets.seal(d.basicPassword) : null;
    return {
      id: base.id,
      organizationId: base.organizationId,
      name: d.name,
      url: d.url,
      topics: d.topics,
      disabled: d.disabled,
      authenticationScheme: d.authenticationScheme,
      basicUsername: d.basicUsername,
      basicPasswordSealed: d.authenticationScheme === 'basic' ? password : null,
      createdAt: base.createdAt,
      updatedAt: now,
    };
  }
}
