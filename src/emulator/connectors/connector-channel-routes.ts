/**
 * GET /connector/v1/channel: the connector's WebSocket (protocol/connector-channel.ts). The
 * bearer token comes in the upgrade's Authorization header; a bad token closes with 4401, an
 * unknown connector with 4404. On open: `hello`, then a `job.offer` for every pending job (and
 * every job it claimed but never reported received: it may have died before recording it); later
 * offers and cancels as they happen, `ping` every heartbeat. While the socket is open the
 * connector is Online; when its last socket closes it is Offline.
 */
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { errorMessage } from '../../lib/errors.js';
import {
  type AgentMessage,
  CHANNEL_CLOSE,
  CONNECTOR_PROTOCOL_VERSION,
} from '../../protocol/connector-channel.js';
import type { EmulatorContext, EmulatorRoutePlugin } from '../context.js';
import { authenticateRequest } from '../accounts/bearer-auth.js';
import type { ConnectorRecord } from './connector-repo.js';
import { hostId } from '../printers/printer-routes.js';

/** Registers the channel route. */
export const connectorChannelRoutes: EmulatorRoutePlugin = async (app, { context }) => {
  app.get('/connector/v1/channel', { websocket: true }, (socket, request) => {
    const early: string[] = [];
    const buffer = (data: unknown): void => void early.push(String(data));
    socket.on('message', buffer);
    void open(socket, request, context).then((connector) => {
      socket.off('message', buffer);
      if (!connector) return;
      socket.on('message', (data) => onMessage(context, connector, String(data)));
      for (const text of early) onMessage(context, connector, text);
    });
  });
};

/** Authenticates, attaches the socket to the hub and sends hello plus pending offers. */
async function open(
  socket: WebSocket,
  request: FastifyRequest,
  context: EmulatorContext,
): Promise<ConnectorRecord | undefined> {
  let connector: ConnectorRecord;
  try {
    const auth = await authenticateRequest(request, ['printing.connectors']);
    try {
      connector = context.connectors.resolveCaller(auth, hostId(request));
    } catch (error) {
      socket.close(CHANNEL_CLOSE.unknownConnector, errorMessage(error).slice(0, 120));
      return undefined;
    }
  } catch (error) {
    socket.close(CHANNEL_CLOSE.unauthorized, errorMessage(error).slice(0, 120));
    return undefined;
  }
  const log = context.logger.child({ connector: connector.id });
  context.hub.attach(connector.id, socket);
  context.connectors.seen(connector.id);
  socket.on('close', () => {
    // While the emulator shuts down the database may already be closed: nothing to record then.
    if (context.store.db.open && !context.hub.isConnected(connector.id))
      context.connectors.offline(connector.id);
    log.info('channel closed');
  });
  context.hub.send(connector.id, {
    type: 'hello',
    connector_id: connector.id,
    heartbeat_s: context.hub.heartbeatS,
    protocol: CONNECTOR_PROTOCOL_VERSION,
  });
  const { fresh, reclaimable } = context.jobs.pendingOffers(connector.id);
  for (const offer of [...reclaimable, ...fresh])
    context.hub.send(connector.id, { type: 'job.offer', job: offer });
  log.info('channel open');
  return connector;
}

/** Handles a message from the agent: pong keeps the channel alive, status updates printers. */
function onMessage(context: EmulatorContext, connector: ConnectorRecord, text: string): void {
  context.hub.alive(connector.id);
  const message = parseAgentMessage(text);
  if (!message) {
    context.logger.debug(
      { connector: connector.id },
      'channel: ignoring a message that is not an agent message',
    );
    return;
  }
  if (message.type === 'pong') {
    context.connectors.seen(connector.id);
  } else {
    for (const p of message.printers)
      context.printers.setStatusFromConnector(connector, p.printer_id, p.status);
  }
}

/**
 * The agent message in `text`, or undefined for anything else (not JSON, not an object, an
 * unknown type, a status without a printer list). Status entries that are not objects are
 * dropped; setStatusFromConnector checks the rest. A message never throws out of the socket's
 * handler: that would end the process.
 */
export function parseAgentMessage(text: string): AgentMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as { type?: unknown; t?: unknown; printers?: unknown };
  if (message.type === 'pong') return { type: 'pong', t: typeof message.t === 'number' ? message.t : 0 };
  if (message.type !== 'status' || !Array.isArray(message.printers)) return undefined;
  const printers = message.printers.filter(
    (p): p is { printer_id: string; status: 'Online' | 'Offline' } => typeof p === 'object' && p !== null,
  );
  return { type: 'status', printers };
}
