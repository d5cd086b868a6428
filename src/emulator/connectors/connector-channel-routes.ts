/**
 * GET /connector/v1/channel[?protocol=<n>]: the connector's WebSocket
 * (protocol/connector-channel.ts). The bearer token comes in the upgrade's Authorization header;
 * a bad token closes with 4401, an unknown connector with 4404, a malformed `protocol` with 4400.
 * The channel speaks the highest version both sides speak (the agent's `protocol`, 2 when it
 * sends none). On open: `hello` naming that version, then a `job.offer` for every pending job
 * (and every job it claimed but never reported received: it may have died before recording it);
 * later offers and cancels as they happen, `ping` every heartbeat. While the socket is open the
 * connector is Online; when its last socket closes it is Offline. Messages from the agent are
 * handled in connector-channel-messages.ts.
 */
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { errorMessage } from '../../lib/errors.js';
import {
  CHANNEL_CLOSE,
  CHANNEL_PROTOCOL_PARAM,
  negotiateProtocol,
  parseProtocolParam,
  type ServerMessage,
} from '../../protocol/connector-channel.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { Logger } from '../../log/logger.js';
import type { JobService } from '../jobs/job-service.js';
import type { PrinterService } from '../printers/printer-service.js';
import type { ConnectorHub } from './connector-hub.js';
import type { ConnectorService } from './connector-service.js';
import { authenticateRequest } from '../accounts/bearer-auth.js';
import type { ConnectorRecord } from './connector-repo.js';
import { hostId } from '../printers/printer-routes.js';
import { handleAgentMessage } from './connector-channel-messages.js';

export { parseAgentMessage } from './connector-channel-messages.js';

/**
 * What the channel route uses: the channels, the connector, its printers and jobs (what its
 * messages use, ChannelMessageServices, among them), and whether the database is still open.
 */
export interface ChannelRouteContext {
  hub: ConnectorHub;
  connectors: ConnectorService;
  printers: PrinterService;
  jobs: JobService;
  logger: Logger;
  db: { readonly open: boolean };
}

/** Registers the channel route. */
export const connectorChannelRoutes: RoutePlugin<ChannelRouteContext> = async (app, { context }) => {
  app.get('/connector/v1/channel', { websocket: true }, (socket, request) => {
    const early: string[] = [];
    const buffer = (data: unknown): void => void early.push(String(data));
    socket.on('message', buffer);
    void open(socket, request, context).then((opened) => {
      socket.off('message', buffer);
      if (!opened) return;
      const { connector, protocol } = opened;
      const reply = (message: ServerMessage) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      const handle = (text: string) =>
        void handleAgentMessage(context, connector, protocol, text, reply).catch((error: unknown) =>
          context.logger.error(
            { connector: connector.id, error: errorMessage(error) },
            'channel message failed',
          ),
        );
      socket.on('message', (data) => handle(String(data)));
      for (const text of early) handle(text);
    });
  });
};

/** Authenticates, attaches the socket to the hub and sends hello plus pending offers. */
async function open(
  socket: WebSocket,
  request: FastifyRequest,
  context: ChannelRouteContext,
): Promise<{ connector: ConnectorRecord; protocol: number } | undefined> {
  const asked = parseProtocolParam(new URL(request.url, 'http://x').searchParams.get(CHANNEL_PROTOCOL_PARAM));
  if (typeof asked === 'string') {
    socket.close(CHANNEL_CLOSE.badRequest, asked);
    return undefined;
  }
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
  const protocol = negotiateProtocol(asked, context.hub.maxProtocol);
  const log = context.logger.child({ connector: connector.id });
  context.hub.attach(connector.id, socket, protocol);
  context.connectors.seen(connector.id);
  socket.on('close', () => {
    // While the emulator shuts down the database may already be closed: nothing to record then.
    if (context.db.open && !context.hub.isConnected(connector.id)) context.connectors.offline(connector.id);
    log.info('channel closed');
  });
  context.hub.send(connector.id, {
    type: 'hello',
    connector_id: connector.id,
    heartbeat_s: context.hub.heartbeatS,
    protocol,
  });
  const { fresh, reclaimable } = context.jobs.pendingOffers(connector.id);
  for (const offer of [...reclaimable, ...fresh]) context.hub.offer(connector.id, offer);
  log.info({ protocol }, 'channel open');
  return { connector, protocol };
}
