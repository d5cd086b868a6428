/**
 * The switchboard's connector rules (`drop_connector`): when one comes into force, the
 * connector's open channel is closed (WebSocket code 1012, reason `fault rule f1`), as when the
 * service drops it; while it is in force, the connector's requests, reconnects included, are
 * answered 503 (http-fault-hooks.ts), each counting one use. Once it ends, the connector's next
 * reconnect goes through.
 */
import type { Logger } from '../../../log/logger.js';
import type { ConnectorHub } from '../../connectors/connector-hub.js';
import type { FaultSwitchboard } from './fault-switchboard.js';

/** WebSocket close code of a dropped channel: Service Restart, so clients reconnect. */
export const DROPPED_CHANNEL_CODE = 1012;

/** What the connector rules steer: the channels. */
export interface ConnectorFaultContext {
  hub: ConnectorHub;
  logger: Logger;
}

/** Closes the channel of every connector a new drop rule names. */
export function installConnectorFaults(board: FaultSwitchboard, context: ConnectorFaultContext): void {
  const dropped = new Set<string>();
  board.onChange(() => {
    for (const rule of board.list()) {
      if (rule.action.kind !== 'drop_connector' || !rule.scope.connector || dropped.has(rule.id)) continue;
      dropped.add(rule.id);
      const connectorId = rule.scope.connector.toLowerCase();
      if (context.hub.disconnect(connectorId, DROPPED_CHANNEL_CODE, `fault rule ${rule.id}`))
        context.logger.info({ connector: connectorId, fault: rule.id }, 'fault rule dropped the connector');
    }
  });
}
