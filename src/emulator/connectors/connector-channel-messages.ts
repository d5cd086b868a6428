/**
 * What the emulator does with the messages a connector sends up its channel
 * (protocol/connector-channel.ts): `pong` keeps it alive, `status` updates its printers, and on
 * protocol 3 `claim` and `events` do what POST .../claim and POST /connector/v1/events do, with
 * the same rules (the connector's own printers only, the same limits and results), answered on
 * the channel with the request's id. On protocol 4 a `claim` may carry the job's events: claimed
 * and applied in one transaction (JobService.claimWithEvents), their results in `claim_result`;
 * a channel of 3 ignores them (the claim alone, no results). Nothing here throws out of the
 * socket's handler.
 */
import { errorMessage } from '../../lib/errors.js';
import {
  type AgentMessage,
  CHANNEL_EVENTS_PROTOCOL,
  CLAIM_EVENTS_PROTOCOL,
  type ChannelClaimResult,
  type ChannelEventsResult,
  type JobEventItemResult,
  type ServerMessage,
} from '../../protocol/connector-channel.js';
import type { Logger } from '../../log/logger.js';
import { toHttpError } from '../http/http-errors.js';
import { checkClaimEvents } from '../jobs/job-claim-events.js';
import { applyEventBatch, type ErrorToResult, parseEventBatch } from '../jobs/job-event-batch.js';
import type { ConnectorRecord } from './connector-repo.js';

/** What handling a channel's messages uses (the composition hands it the services). */
export interface ChannelMessageServices {
  hub: { alive(connectorId: string): void };
  connectors: { seen(connectorId: string): void };
  printers: {
    setStatusFromConnector(connector: ConnectorRecord, printerId: string, status: unknown): unknown;
  };
  jobs: {
    claim(connector: ConnectorRecord, jobId: string): unknown;
    claimWithEvents(
      connector: ConnectorRecord,
      jobId: string,
      events: unknown[],
      toResult: ErrorToResult,
    ): Promise<JobEventItemResult[]>;
    applyEvent(connector: ConnectorRecord, jobId: string, body: unknown): Promise<unknown>;
  };
  logger: Logger;
}

/** Longest claim or batch id the channel takes. */
const MAX_REQUEST_ID = 100;

/** Handles one message of a connector's channel speaking `protocol`; answers go to `reply`. */
export async function handleAgentMessage(
  context: ChannelMessageServices,
  connector: ConnectorRecord,
  protocol: number,
  text: string,
  reply: (message: ServerMessage) => void,
): Promise<void> {
  context.hub.alive(connector.id);
  const message = parseAgentMessage(text);
  const log = context.logger.child({ connector: connector.id });
  if (!message) {
    log.debug('channel: ignoring a message that is not an agent message');
    return;
  }
  if (message.type === 'pong') {
    context.connectors.seen(connector.id);
  } else if (message.type === 'status') {
    for (const p of message.printers)
      context.printers.setStatusFromConnector(connector, p.printer_id, p.status);
  } else if (protocol < CHANNEL_EVENTS_PROTOCOL) {
    log.debug({ type: message.type }, `channel: ${message.type} needs protocol ${CHANNEL_EVENTS_PROTOCOL}`);
  } else if (message.type === 'claim') {
    const carried = protocol >= CLAIM_EVENTS_PROTOCOL ? message.events : undefined;
    const answer =
      carried === undefined
        ? claimResult(context, connector, message)
        : await claimWithEventsResult(context, connector, message, carried);
    reply(answer);
    log.info(
      { type: 'claim', job: message.job_id, status: answer.status, events: answer.events?.length ?? 0 },
      'channel request answered',
    );
  } else {
    reply(await eventsResult(context, connector, message));
    log.info({ type: 'events', events: message.events.length }, 'channel request answered');
  }
}

function claimResult(
  context: ChannelMessageServices,
  connector: ConnectorRecord,
  message: Extract<AgentMessage, { type: 'claim' }>,
): ChannelClaimResult {
  const answer = { type: 'claim_result', claim_id: message.claim_id, job_id: message.job_id } as const;
  try {
    context.jobs.claim(connector, message.job_id);
    return { ...answer, status: 200 };
  } catch (error) {
    const mapped = toHttpError(error);
    return { ...answer, status: mapped.status, error: mapped.body.error, message: mapped.body.message };
  }
}

async function claimWithEventsResult(
  context: ChannelMessageServices,
  connector: ConnectorRecord,
  message: Extract<AgentMessage, { type: 'claim' }>,
  events: unknown,
): Promise<ChannelClaimResult> {
  const answer = { type: 'claim_result', claim_id: message.claim_id, job_id: message.job_id } as const;
  try {
    const checked = checkClaimEvents(events);
    const results = await context.jobs.claimWithEvents(connector, message.job_id, checked, toHttpError);
    return { ...answer, status: 200, events: results };
  } catch (error) {
    const mapped = toHttpError(error);
    if (mapped.status >= 500)
      context.logger.error(
        { connector: connector.id, job: message.job_id, error: errorMessage(error) },
        'channel claim with events failed',
      );
    const { field } = mapped.body;
    return {
      ...answer,
      status: mapped.status,
      error: mapped.body.error,
      message: mapped.body.message,
      ...(typeof field === 'string' ? { field } : {}),
    };
  }
}

async function eventsResult(
  context: ChannelMessageServices,
  connector: ConnectorRecord,
  message: Extract<AgentMessage, { type: 'events' }>,
): Promise<ChannelEventsResult> {
  try {
    const items = parseEventBatch({ events: message.events });
    const results = await applyEventBatch(
      items,
      (jobId, event) => context.jobs.applyEvent(connector, jobId, event),
      toHttpError,
    );
    return { type: 'events_result', batch_id: message.batch_id, results };
  } catch (error) {
    const mapped = toHttpError(error);
    if (mapped.status >= 500)
      context.logger.error(
        { connector: connector.id, error: errorMessage(error) },
        'channel event batch failed',
      );
    const { error: code, message: why, field } = mapped.body;
    return {
      type: 'events_result',
      batch_id: message.batch_id,
      error: {
        status: mapped.status,
        error: code,
        message: why,
        ...(typeof field === 'string' ? { field } : {}),
      },
    };
  }
}

const requestId = (v: unknown): v is string =>
  typeof v === 'string' && v !== '' && v.length <= MAX_REQUEST_ID;

/**
 * The agent message in `text`, or undefined for anything else (not JSON, not an object, an
 * unknown type, a status without a printer list, a claim or batch without its id or job). Status
 * entries that are not objects are dropped; setStatusFromConnector checks the rest. The events of
 * a batch or a claim are checked when applied (as the REST route checks them).
 */
export function parseAgentMessage(text: string): AgentMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (message.type === 'pong') return { type: 'pong', t: typeof message.t === 'number' ? message.t : 0 };
  if (message.type === 'claim' && requestId(message.claim_id) && typeof message.job_id === 'string')
    return {
      type: 'claim',
      claim_id: message.claim_id,
      job_id: message.job_id,
      ...(message.events === undefined ? {} : { events: message.events as never }),
    };
  if (message.type === 'events' && requestId(message.batch_id))
    return { type: 'events', batch_id: message.batch_id, events: message.events as never };
  if (message.type !== 'status' || !Array.isArray(message.printers)) return undefined;
  const printers = message.printers.filter(
    (p): p is { printer_id: string; status: 'Online' | 'Offline' } => typeof p === 'object' && p !== null,
  );
  return { type: 'status', printers };
}
