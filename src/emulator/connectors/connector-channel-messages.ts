/**
 * What the emulator does with the messages a connector sends up its channel
 * (protocol/connector-channel.ts): `pong` keeps it alive, `status` updates its printers, and on
 * protocol 3 `claim` and `events` do what POST .../claim and POST /connector/v1/events do, with
 * the same rules (the connector's own printers only, the same limits and results), answered on
 * the channel with the request's id. Nothing here throws out of the socket's handler.
 */
import { errorMessage } from '../../lib/errors.js';
import {
  type AgentMessage,
  CHANNEL_EVENTS_PROTOCOL,
  type ChannelClaimResult,
  type ChannelEventsResult,
  type ServerMessage,
} from '../../protocol/connector-channel.js';
import type { Logger } from '../../log/logger.js';
import { toHttpError } from '../http/http-errors.js';
import { applyEventBatch, parseEventBatch } from '../jobs/job-event-batch.js';
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
    const answer = claimResult(context, connector, message);
    reply(answer);
    log.info({ type: 'claim', job: message.job_id, status: answer.status }, 'channel request answered');
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
 * a batch are checked when applied (as the REST route checks them).
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
    return { type: 'claim', claim_id: message.claim_id, job_id: message.job_id };
  if (message.type === 'events' && requestId(message.batch_id))
    return { type: 'events', batch_id: message.batch_id, events: message.events as never };
  if (message.type !== 'status' || !Array.isArray(message.printers)) return undefined;
  const printers = message.printers.filter(
    (p): p is { printer_id: string; status: 'Online' | 'Offline' } => typeof p === 'object' && p !== null,
  );
  return { type: 'status', printers };
}
