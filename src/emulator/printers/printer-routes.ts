/**
 * The admin API's printer endpoints as connectors and admins use them:
 * POST /printing/v1/printers/ (X-Host-Id), PUT / PATCH / GET / DELETE /printing/v1/printers/<id>/
 * and the paginated list with an optional connector_id filter. Reads need the scope printing or
 * printing.connectors; writes need printing.connectors. The list shows what the token may see:
 * a connector (X-Host-Id sent, or a token with printing.connectors but not printing) its own
 * printers; admins the organization's printers; users and client_credentials tokens the printers
 * they may use (services/assignment-service.ts: unassigned ones, and those of their groups).
 */
import type { FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { ConnectorService } from '../connectors/connector-service.js';
import type { DriverAssignmentService } from '../drivers/drivers-face.js';
import type { AssignmentService } from '../groups/assignment-service.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { CapabilityService } from './capability-service.js';
import type { PrinterService } from './printer-service.js';
import { requireAnyScope, requireScopes } from '../accounts/bearer-auth.js';
import { envelope, parsePage } from '../http/pagination.js';
import { type PrinterWire, printerToWire } from './printer-wire.js';
import type { PrinterRecord } from './printer-repo.js';
import { printerRequests, printerSchemas } from './printer-schemas.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the printer routes use: printers, their capabilities and driver state, the caller's connector, who may use which printer. */
export interface PrinterRouteContext {
  printers: PrinterService;
  capabilities: CapabilityService;
  drivers: DriverAssignmentService;
  connectors: ConnectorService;
  assignments: AssignmentService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the printer routes. */
export const printerRoutes: RoutePlugin<PrinterRouteContext> = async (app, { context }) => {
  const { printers } = context;
  const wire = (p: PrinterRecord): PrinterWire => printerWire(context, p);
  const write = { preHandler: requireScopes('printing.connectors') };
  const read = { preHandler: requireAnyScope('printing', 'printing.connectors') };

  app.post(
    '/printing/v1/printers',
    { ...write, schema: operation('CreatePrinter', printerSchemas.create, printerRequests.create) },
    async (request, reply) => {
      const printer = printers.create(request.auth.organizationId, hostId(request), request.body);
      return reply.status(201).send(wire(printer));
    },
  );

  app.get(
    '/printing/v1/printers',
    { ...read, schema: operation('ListPrinters', printerSchemas.list, printerRequests.list) },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = parsePage(query);
      const connectorId = query['connector_id'];
      if (connectorId !== undefined && (typeof connectorId !== 'string' || !UUID.test(connectorId))) {
        throw new ValidationError('connector_id', 'must be a UUID');
      }
      const own = ownConnector(context, request);
      if (own === null) return envelope(request, context.baseUrl, page, 0, []);
      const wanted = connectorId === undefined ? own : (connectorId as string).toLowerCase();
      if (own !== undefined && wanted !== own) return envelope(request, context.baseUrl, page, 0, []);
      const filter = wanted === undefined ? {} : { connectorId: wanted };
      // A connector lists all its printers; admins, users and clients those they may use.
      const usableBy = own === undefined ? context.assignments.restriction(request.auth) : undefined;
      const restrict = usableBy === undefined ? {} : { usableBy };
      const { count, rows } = printers.page(request.auth.organizationId, { ...page, ...filter, ...restrict });
      return envelope(request, context.baseUrl, page, count, rows.map(wire));
    },
  );

  app.get<IdParams>(
    '/printing/v1/printers/:id',
    { ...read, schema: operation('GetPrinterById', printerSchemas.get) },
    async (request) => wire(printers.require(request.auth.organizationId, request.params.id)),
  );

  app.put<IdParams>(
    '/printing/v1/printers/:id',
    { ...write, schema: operation('ReplacePrinter', printerSchemas.update, printerRequests.replace) },
    async (request) =>
      wire(printers.update(request.auth.organizationId, request.params.id, request.body, 'replace')),
  );

  app.patch<IdParams>(
    '/printing/v1/printers/:id',
    { ...write, schema: operation('UpdatePrinter', printerSchemas.update, printerRequests.patch) },
    async (request) =>
      wire(printers.update(request.auth.organizationId, request.params.id, request.body, 'patch')),
  );

  app.delete<IdParams>(
    '/printing/v1/printers/:id',
    { ...write, schema: operation('DeletePrinter', printerSchemas.delete) },
    async (request, reply) => {
      printers.remove(request.auth.organizationId, request.params.id);
      return reply.status(204).send();
    },
  );
};

/** The X-Host-Id header (the connector id), when sent once. */
export function hostId(request: FastifyRequest): string | undefined {
  const value = request.headers['x-host-id'];
  return Array.isArray(value) ? value[0] : value;
}

/** The Printer object with its driver assignment state and encoded capabilities. */
export function printerWire(context: PrinterRouteContext, p: PrinterRecord): PrinterWire {
  return printerToWire(p, {
    autoDriverAssignmentState: context.drivers.state(p),
    blobCapabilities: context.capabilities.encoded(p),
  });
}

/**
 * The connector whose printers alone the caller may list: the X-Host-Id connector, or for a
 * connector token (printing.connectors without printing) the connector it registered (null: it
 * registered none, so it sees nothing); undefined for admins and users (the whole organization).
 */
function ownConnector(context: PrinterRouteContext, request: FastifyRequest): string | null | undefined {
  const host = hostId(request);
  const connectorToken = !request.auth.scopes.includes('printing');
  if (host === undefined && !connectorToken) return undefined;
  try {
    return context.connectors.resolveCaller(request.auth, host).id;
  } catch (error) {
    if (host === undefined && error instanceof NotFoundError) return null;
    throw error;
  }
}
