/**
 * The connector channel: how a connector (the agent) registers with the cloud, receives jobs and
 * reports their progress. The spec does not describe it; this file is its single definition,
 * used by the emulator's routes and the agent's client alike. docs/connector-protocol.md explains
 * it in prose. Every call carries `Authorization: Bearer <token>` with scope printing.connectors.
 *
 *   POST /connector/v1/register                 ConnectorRegistration -> Connector (idempotent by serial_string)
 *   POST /printing/v1/printers/  (X-Host-Id)    spec's printer create; PUT/PATCH/GET/DELETE per the admin spec
 *   PUT  /connector/v1/printers/<id>/properties PrinterPropertiesUpload -> 204 (the whole properties)
 *   PATCH /connector/v1/printers/<id>/properties PrinterPropertiesPatch -> 204 (only what changed)
 *   PUT  /connector/v1/printers/<id>/blob_capabilities  BlobCapabilitiesUpload -> 204 (its own printers)
 *   GET  /connector/v1/channel[?protocol=4]     WebSocket: ServerMessage down, AgentMessage up;
 *                                               protocol 3 adds inline documents, claims and
 *                                               event batches on the socket; 4 adds a claim's
 *                                               first events in its frame
 *   GET  /connector/v1/jobs?wait=<s>            long poll fallback -> JobPollResponse
 *   POST /connector/v1/jobs/<id>/claim          -> JobOffer (409 if another connector holds it)
 *   GET  /connector/v1/jobs/<id>/document       the document; Range supported (206), ETag;
 *                                               ?claim=1 claims an unclaimed job first (protocol 2)
 *   POST /connector/v1/jobs/<id>/events         JobEvent -> 204 (idempotent by event_id)
 *   POST /connector/v1/events                   JobEventBatch -> 200 JobEventBatchResult (one result per event)
 */
import type { BlobCapabilities } from './blob-capabilities.js';
import type { PrinterCapabilityProperties } from './printer-properties.js';
import type { PrintTicket } from './print-ticket.js';

/**
 * The highest protocol version of the channel. 2: a job event of an unclaimed job claims it for
 * the sender, and the document download claims with `?claim=1`, so an agent needs no claim
 * request of its own. 3: on a channel whose agent asked for it (`?protocol=3` on the upgrade),
 * small documents travel inline after their offer, and claims and event batches travel on the
 * socket. 4: a channel claim may carry the job's first events, answered in its `claim_result`.
 * Everything of the earlier versions stays accepted (docs/connector-protocol.md).
 */
export const CONNECTOR_PROTOCOL_VERSION = 4;

/** The version a channel speaks when its agent asks for none (agents of protocol 1 and 2 never ask). */
export const UNASKED_CHANNEL_PROTOCOL = 2;

/** The query parameter of the channel upgrade naming the highest version the agent speaks. */
export const CHANNEL_PROTOCOL_PARAM = 'protocol';

/** The first version with inline documents, channel claims and channel event batches. */
export const CHANNEL_EVENTS_PROTOCOL = 3;

/** The first version whose channel claims carry the job's events (`claim.events`, `claim_result.events`). */
export const CLAIM_EVENTS_PROTOCOL = 4;

/** The default largest document a protocol-3 channel carries inline with its offer (256 KiB). */
export const INLINE_DOCUMENT_MAX_BYTES = 256 * 1024;

/**
 * The version a channel speaks: the highest both sides speak. `asked` is the agent's
 * `?protocol=` (undefined when it sent none: then UNASKED_CHANNEL_PROTOCOL), `cloudMax` the
 * highest the cloud speaks.
 */
export function negotiateProtocol(asked: number | undefined, cloudMax: number): number {
  return Math.max(1, Math.min(cloudMax, asked ?? UNASKED_CHANNEL_PROTOCOL));
}

/**
 * The agent's `?protocol=` of a channel upgrade: undefined when absent; a whole number from 1 up,
 * else a string naming the rule broken.
 */
export function parseProtocolParam(raw: string | null | undefined): number | undefined | string {
  if (raw === null || raw === undefined || raw === '') return undefined;
  if (!/^[1-9]\d{0,3}$/.test(raw)) return `${CHANNEL_PROTOCOL_PARAM} must be a whole number from 1 up`;
  return Number(raw);
}

/** The query of a document download that claims the job first (protocol 2). */
export const CLAIMING_DOWNLOAD_QUERY = { claim: '1' } as const;

export const CHANNEL_PATHS = {
  register: '/connector/v1/register',
  /** PUT (PrinterPropertiesUpload: everything) and PATCH (PrinterPropertiesPatch: what changed). */
  printerProperties: (printerId: string) =>
    `/connector/v1/printers/${encodeURIComponent(printerId)}/properties`,
  printerBlobCapabilities: (printerId: string) =>
    `/connector/v1/printers/${encodeURIComponent(printerId)}/blob_capabilities`,
  channel: '/connector/v1/channel',
  jobs: '/connector/v1/jobs',
  claim: (jobId: string) => `/connector/v1/jobs/${encodeURIComponent(jobId)}/claim`,
  document: (jobId: string) => `/connector/v1/jobs/${encodeURIComponent(jobId)}/document`,
  events: (jobId: string) => `/connector/v1/jobs/${encodeURIComponent(jobId)}/events`,
  eventBatch: '/connector/v1/events',
} as const;

export type ConnectorType = 'TPHub' | 'Printserver';
export type OsType = 'Linux' | 'Windows' | 'Windows CE';

/** Body of POST /connector/v1/register. */
export interface ConnectorRegistration {
  /** Stable device identifier (model plus serial); the registration key. */
  serial_string: string;
  type: ConnectorType;
  readable_name: string;
  description?: string;
  hostname: string;
  internal_ip: string | null;
  external_ip: string | null;
  os_type: OsType;
  sw_version: string;
  location?: string | null;
  management_url?: string | null;
  /** Comma-separated, from RAW, PDF, EMF, XPS. */
  supported_formats: string;
}

/** The connector resource (spec: admin document, Connector). */
export interface Connector {
  id: string;
  readable_name: string;
  description: string;
  type: ConnectorType | 'Virtual' | 'Embedded';
  tpuid: number;
  status: 'Online' | 'Offline' | 'Inproperly Configured';
  location: string | null;
  hostname: string;
  internal_ip: string | null;
  external_ip: string | null;
  os_type: OsType;
  sw_version: string;
  last_seen_online: string;
  last_printer_update: string;
  organization_id: string;
  management_url: string | null;
  serial_string: string | null;
  supported_formats: string;
}

/** Body of PUT /connector/v1/printers/<id>/properties. */
export interface PrinterPropertiesUpload {
  properties: PrinterCapabilityProperties;
  /** Optional: the blob capability defaults too, so one changed capability costs one request. */
  blob_capabilities?: BlobCapabilities;
}

/**
 * Body of PATCH /connector/v1/printers/<id>/properties: a partial update. `properties` holds
 * any subset of the fields PrinterPropertiesUpload's `properties` holds, `blob_capabilities` any
 * subset of the five default blob capabilities; each given one is validated exactly as the PUT
 * validates it and replaces the stored one whole, absent ones stay. Unknown names are refused
 * (400 naming the field). A printer without stored properties (or blob defaults) takes only a
 * complete first upload of that part (400 naming `properties` or `blob_capabilities`). The
 * whole body is validated before anything is stored.
 */
export interface PrinterPropertiesPatch {
  properties?: Partial<PrinterCapabilityProperties>;
  blob_capabilities?: Partial<BlobCapabilities>;
}

/**
 * Body of PUT /connector/v1/printers/<id>/blob_capabilities: the `default` side of the five blob
 * capabilities, as the connector computed them from the printer. The bare five at top level are
 * accepted as well. Admin customs stay as they are; GET .../blob_capabilities/ shows both.
 */
export interface BlobCapabilitiesUpload {
  defaults: BlobCapabilities;
}

/** The document of a job, as the connector downloads it. */
export interface JobDocument {
  /** Path of the download, relative to the cloud URL. */
  url: string;
  /** Bytes. */
  size: number;
  /** Hex SHA-256 of the whole document; the agent checks it after download. */
  sha256: string;
  /** Lower-case file extension from the Print request (pdf, txt, ...). */
  extension: string;
  /** MIME type the cloud derived from the extension. */
  content_type: string;
  /** Original file name (the Print request's alias). */
  name: string;
}

/** A job offered to the connector that owns its printer. */
export interface JobOffer {
  job_id: string;
  printer_id: string;
  /** The printer's tp_id at the connector. */
  tp_id: number;
  document: JobDocument;
  ticket: PrintTicket;
  user: { id: string; email: string; name: string };
  /** ISO 8601. */
  created: string;
}

export interface JobPollResponse {
  jobs: JobOffer[];
}

export type JobEventKind =
  | 'received'
  | 'downloading'
  | 'printing'
  | 'progress'
  /** The job waits for its printer (busy, offline, answering garbage) or its spool; `message` says why. */
  | 'waiting'
  | 'completed'
  | 'failed'
  | 'cancelled';

/** The kinds after which a job changes no more. */
export const FINAL_EVENT_KINDS: ReadonlySet<JobEventKind> = new Set(['completed', 'failed', 'cancelled']);

/** Body of POST /connector/v1/jobs/<id>/events. Events of one job are applied in `seq` order. */
export interface JobEvent {
  /** UUID chosen by the connector; a repeated event_id is acknowledged and ignored. */
  event_id: string;
  /** Per-job sequence number, from 1; an event older than the last applied one is ignored. */
  seq: number;
  kind: JobEventKind;
  /** ISO 8601, when it happened at the connector. */
  at: string;
  pages_printed?: number;
  pages_total?: number;
  /** The printer's own job id, once submitted. */
  printer_job_id?: string;
  /** For failed: an error code from the host operating system's list (3011 = restart the job). */
  error_code?: number;
  /** For failed: why. For waiting: `waiting: <reason>, retry in <n> s` (see WAITING_PREFIX). */
  message?: string;
}

/** How every `waiting` event's message starts; the cloud shows it until the job moves on. */
export const WAITING_PREFIX = 'waiting: ';

/** Most events one POST /connector/v1/events may carry. */
export const MAX_EVENT_BATCH = 100;

/** The `error` of a batch result whose event was not applied because an earlier one of its job failed. */
export const EVENT_SKIPPED = 'skipped';

/** One event of a batch, with the job it belongs to. */
export interface JobEventBatchItem {
  job_id: string;
  event: JobEvent;
}

/**
 * Body of POST /connector/v1/events: 1 to MAX_EVENT_BATCH events of any of the caller's jobs.
 * The cloud applies them in the given order, each as the single-event route would.
 */
export interface JobEventBatch {
  events: JobEventBatchItem[];
}

/**
 * The outcome of one event of a batch. `status` 204: applied or already known (acknowledged).
 * Otherwise `error` and `message` say why, as the single-event route's error body would; 409 with
 * `error: "skipped"` means an earlier event of the same job in the batch failed, so this one was
 * not tried. `field` names the bad field of a malformed event (`events[<i>].event.<name>`);
 * `event_id` is null when the item carried none.
 */
export interface JobEventItemResult {
  event_id: string | null;
  status: number;
  error?: string;
  message?: string;
  field?: string;
}

/** Answer (200) of POST /connector/v1/events: one result per event, in the order sent. */
export interface JobEventBatchResult {
  results: JobEventItemResult[];
}

/**
 * The answer to a channel claim (protocol 3): `status` 200 when the job is the sender's (claimed
 * now or before); otherwise the status, `error` and `message` POST .../claim would answer (409:
 * another connector holds the job or it ended; 404: no such job on the sender's printers).
 * Protocol 4: when the claim carried `events` and was answered 200, `events` holds one result per
 * event in the order sent, as `events_result` does, the events applied with the claim; absent
 * (a refused claim, an older cloud), none of them was applied.
 */
export interface ChannelClaimResult {
  type: 'claim_result';
  claim_id: string;
  job_id: string;
  status: number;
  error?: string;
  message?: string;
  /** For a 400: the bad field of the claim (`events` when its events are malformed). */
  field?: string;
  events?: JobEventItemResult[];
}

/**
 * The answer to a channel event batch (protocol 3): `results` as POST /connector/v1/events
 * answers them (one per event, in order), or `error` when the whole batch was refused (`status`
 * 400 with `field` for a bad envelope, as the REST route; 500 for an unexpected failure, after
 * which sending the batch again is safe).
 */
export interface ChannelEventsResult {
  type: 'events_result';
  batch_id: string;
  results?: JobEventItemResult[];
  error?: { status: number; error: string; message: string; field?: string };
}

/**
 * Messages the cloud sends down the WebSocket. A `job.offer` with `inline: true` (protocol 3) is
 * followed at once by one binary frame holding the whole document (its size and sha256 are the
 * offer's `document.size` and `document.sha256`).
 */
export type ServerMessage =
  | { type: 'hello'; connector_id: string; heartbeat_s: number; protocol?: number }
  | { type: 'job.offer'; job: JobOffer; inline?: boolean }
  | { type: 'job.cancel'; job_id: string }
  | { type: 'ping'; t: number }
  | ChannelClaimResult
  | ChannelEventsResult;

/**
 * Messages the agent sends up the WebSocket. Protocol 3 adds `claim` (as POST .../claim, answered
 * by `claim_result` with the same `claim_id`) and `events` (as POST /connector/v1/events, 1 to
 * MAX_EVENT_BATCH events, answered by `events_result` with the same `batch_id`); ids are the
 * agent's own, at most 100 characters. Protocol 4: a `claim` may carry `events`, 1 to
 * MAX_EVENT_BATCH events of the claimed job itself, applied after the claim succeeds.
 */
export type AgentMessage =
  | { type: 'pong'; t: number }
  | { type: 'status'; printers: { printer_id: string; status: 'Online' | 'Offline' }[] }
  | { type: 'claim'; claim_id: string; job_id: string; events?: JobEvent[] }
  | { type: 'events'; batch_id: string; events: JobEventBatchItem[] };

/** Close codes of the channel WebSocket. */
export const CHANNEL_CLOSE = {
  /** Token missing, expired or without printing.connectors: refresh and reconnect. */
  unauthorized: 4401,
  /** The connector was deleted in the cloud: register again. */
  unknownConnector: 4404,
  /** A newer channel of the same connector replaced this one. */
  replaced: 4409,
  /** The upgrade request was malformed (a bad `?protocol=`); the reason names the rule. */
  badRequest: 4400,
} as const;
