/**
 * A printer's capabilities in the admin API and the connector's upload of their defaults:
 *   GET   /printing/v1/printers/<id>/blob_capabilities/             default and custom of each
 *   PATCH /printing/v1/printers/<id>/blob_capabilities/<name>/      {custom} (admin; null resets)
 *   GET   /printing/v1/printers/<id>/capabilities/                  simplified, customized
 *   PATCH /printing/v1/printers/<id>/capabilities/                  color_supported, trays (admin)
 *   GET   /printing/v1/printers/<id>/default_capabilities/          simplified, defaults
 *   PUT   /connector/v1/printers/<id>/blob_capabilities             the five defaults (its connector)
 * Reads need printing or printing.connectors; admin changes need the admin role as well.
 */
import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { ConnectorService } from '../connectors/connector-service.js';
import type { CapabilityService } from './capability-service.js';
import type { PrinterService } from './printer-service.js';
import { requireAnyScope, requireScopes } from '../accounts/bearer-auth.js';
import { forbidden } from '../http/http-errors.js';
import type { PrinterRecord } from './printer-repo.js';
import { hostId } from './printer-routes.js';
import { printerRequests, printerSchemas } from './printer-schemas.js';
import { connectorJobSchemas } from '../connectors/connector-schemas.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };
type CapabilityParams = { Params: { id: string; name: string } };

/** What the capability routes use. */
export interface CapabilityRouteContext {
  printers: PrinterService;
  capabilities: CapabilityService;
  connectors: ConnectorService;
}

/** Registers the capability routes. */
export const printerCapabilityRoutes: RoutePlugin<CapabilityRouteContext> = async (app, { context }) => {
  const { printers, capabilities, connectors } = context;
  const read = { preHandler: requireAnyScope('printing', 'printing.connectors') };
  const printer = (request: FastifyRequest<IdParams>): PrinterRecord =>
    printers.require(request.auth.organizationId, request.params.id);
  const adminPrinter = (request: FastifyRequest<IdParams>): PrinterRecord => {
    if (!request.auth.roles.includes('admin')) throw forbidden('changing capabilities needs the admin role');
    return printer(request);
  };
  const base = '/printing/v1/printers/:id';

  app.get<IdParams>(
    `${base}/blob_capabilities`,
    { ...read, schema: operation('GetBlobCapabilities', printerSchemas.blobCapabilities) },
    async (request) => capabilities.blobView(printer(request)),
  );
  app.patch<CapabilityParams>(
    `${base}/blob_capabilities/:name`,
    {
      ...read,
      schema: operation(
        'UpdateBlobCapability',
        printerSchemas.patchBlobCapability,
        printerRequests.patchBlobCapability,
      ),
    },
    async (request) =>
      capabilities.patchBlob(adminPrinter(request), request.params.name.toLowerCase(), request.body),
  );
  app.get<IdParams>(
    `${base}/capabilities`,
    { ...read, schema: operation('GetPrinterCapabilities', printerSchemas.capabilities) },
    async (request) => capabilities.simplified(printer(request)),
  );
  app.patch<IdParams>(
    `${base}/capabilities`,
    {
      ...read,
      schema: operation(
        'UpdatePrinterCapabilities',
        printerSchemas.patchCapabilities,
        printerRequests.patchCapabilities,
      ),
    },
    async (request) => capabilities.patchSimplified(adminPrinter(request), request.body),
  );
  app.get<IdParams>(
    `${base}/default_capabilities`,
    { ...read, schema: operation('GetDefaultCapabilities', printerSchemas.capabilities) },
    async (request) => capabilities.defaultSimplified(printer(request)),
  );

  const connectorOnly = { preHandler: requireScopes('printing.connectors') };
  app.put<IdParams>(
    '/connector/v1/printers/:id/blob_capabilities',
    {
      ...connectorOnly,
      schema: operation(
        'ReportBlobCapabilities',
        connectorJobSchemas.blobCapabilities,
        printerRequests.reportBlobCapabilities,
      ),
    },
    async (request, reply) => {
      const caller = connectors.resolveCaller(request.auth, hostId(request));
      const target = printer(request);
      if (target.connectorId !== caller.id) throw forbidden('the printer belongs to another connector');
      capabilities.uploadDefaults(target, request.body);
      return reply.status(204).send();
    },
  );
};
