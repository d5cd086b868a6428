/**
 * The admin API's connector endpoints:
 *   GET    /printing/v1/connectors/?type=&status=&limit=&offset=   paginated connectors
 *   GET    /printing/v1/connectors/<id>/                           one connector
 *   GET    /printing/v1/filter_values/connector/                   [{field_name, values}] for status, type
 *   DELETE /printing/v1/connectors/<id>/                           204; its printers go too, its channel
 *                                                                  is closed with 4404 (admin role)
 * Reads need printing or printing.connectors.
 */
import { ValidationError } from '../../lib/errors.js';
import { CHANNEL_CLOSE, type Connector } from '../../protocol/connector-channel.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { Logger } from '../../log/logger.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { ConnectorHub } from './connector-hub.js';
import type { ConnectorRepo } from './connector-repo.js';
import type { ConnectorService } from './connector-service.js';
import { requireAnyScope } from '../accounts/bearer-auth.js';
import { forbidden } from '../http/http-errors.js';
import { envelope, parsePage } from '../http/pagination.js';
import { connectorToWire } from './connector-service.js';
import { connectorAdminSchemas, connectorRequests } from './connector-schemas.js';
import { operation } from '../http/schemas.js';

/** Connector types of the spec. */
export const CONNECTOR_TYPES: readonly Connector['type'][] = ['TPHub', 'Printserver', 'Virtual', 'Embedded'];
/** Connector statuses of the spec. */
export const CONNECTOR_STATUSES: readonly Connector['status'][] = [
  'Online',
  'Offline',
  'Inproperly Configured',
];

type IdParams = { Params: { id: string } };

/** One query filter: absent, or one of `allowed` (any letter case); 400 naming the parameter otherwise. */
function filter<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const match = allowed.find((v) => typeof raw === 'string' && v.toLowerCase() === raw.toLowerCase());
  if (!match) throw new ValidationError(name, `must be one of ${allowed.join(', ')}`);
  return match;
}

/** What the connector admin routes use: the connectors' records, service and channels. */
export interface ConnectorAdminRouteContext {
  connectorRecords: ConnectorRepo;
  connectors: ConnectorService;
  hub: ConnectorHub;
  logger: Logger;
  baseUrl: BaseUrlPolicy;
}

/** Registers the connector admin routes. */
export const connectorAdminRoutes: RoutePlugin<ConnectorAdminRouteContext> = async (app, { context }) => {
  const { connectorRecords, connectors, hub, logger, baseUrl } = context;
  const read = { preHandler: requireAnyScope('printing', 'printing.connectors') };

  app.get(
    '/printing/v1/connectors',
    { ...read, schema: operation('ListConnectors', connectorAdminSchemas.list, connectorRequests.list) },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = parsePage(query);
      const type = filter(query, 'type', CONNECTOR_TYPES);
      const status = filter(query, 'status', CONNECTOR_STATUSES);
      const all = connectorRecords
        .listByOrganization(request.auth.organizationId)
        .filter(
          (c) => (type === undefined || c.type === type) && (status === undefined || c.status === status),
        );
      const rows = all.slice(page.offset, page.offset + page.limit).map(connectorToWire);
      return envelope(request, baseUrl, page, all.length, rows);
    },
  );

  app.get<IdParams>(
    '/printing/v1/connectors/:id',
    { ...read, schema: operation('GetConnector', connectorAdminSchemas.get) },
    async (request) => connectorToWire(connectors.require(request.auth.organizationId, request.params.id)),
  );

  app.get(
    '/printing/v1/filter_values/connector',
    { ...read, schema: operation('GetConnectorFilterValues', connectorAdminSchemas.filterValues) },
    async (request) => {
      const all = connectorRecords.listByOrganization(request.auth.organizationId);
      const distinct = (values: string[]): string[] => [...new Set(values)].sort();
      return [
        { field_name: 'status', values: distinct(all.map((c) => c.status)) },
        { field_name: 'type', values: distinct(all.map((c) => c.type)) },
      ];
    },
  );

  app.delete<IdParams>(
    '/printing/v1/connectors/:id',
    { ...read, schema: operation('DeleteConnector', connectorAdminSchemas.delete) },
    async (request, reply) => {
      if (!request.auth.roles.includes('admin')) throw forbidden('deleting a connector needs the admin role');
      const connector = connectors.require(request.auth.organizationId, request.params.id);
      // The printers (and their capabilities and driver states) go with it: ON DELETE CASCADE.
      connectorRecords.delete(connector.id);
      hub.disconnect(connector.id, CHANNEL_CLOSE.unknownConnector, 'connector deleted');
      logger.info({ connector: connector.id, name: connector.readableName }, 'connector deleted');
      return reply.status(204).send();
    },
  );
};
