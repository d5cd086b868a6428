/**
 * The REST half of the connector channel (protocol/connector-channel.ts): register, properties
 * upload (PUT: the whole; PATCH: only what changed), long poll, claim, document download (Range,
 * ETag) and job events, one at a time or in batches (services/job-event-batch.ts). Every call
 * needs the scope printing.connectors; the calling connector is X-Host-Id or the one the caller
 * registered.
 */
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../lib/errors.js';
import type { JobEventBatchResult, JobPollResponse } from '../../protocol/connector-channel.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { JobService } from '../jobs/job-service.js';
import type { CapabilityService } from '../printers/capability-service.js';
import type { PrinterService } from '../printers/printer-service.js';
import type { ConnectorHub } from './connector-hub.js';
import type { ConnectorService } from './connector-service.js';
import type { FileSender } from '../http/file-sender.js';
import { requireScopes } from '../accounts/bearer-auth.js';
import { forbidden, toHttpError } from '../http/http-errors.js';
import { connectorToWire } from './connector-service.js';
import { applyEventBatch, parseEventBatch } from '../jobs/job-event-batch.js';
import { parsePropertiesUpload } from '../printers/printer-wire.js';
import { hostId } from '../printers/printer-routes.js';
import { connectorJobSchemas, connectorRequests } from './connector-schemas.js';
import { operation } from '../http/schemas.js';

/** Longest long poll the emulator holds, in seconds. */
export const MAX_POLL_WAIT_S = 120;

type JobParams = { Params: { id: string } };

/** What the connector REST routes use. */
export interface ConnectorJobRouteContext {
  connectors: ConnectorService;
  jobs: JobService;
  printers: PrinterService;
  hub: ConnectorHub;
  capabilities: CapabilityService;
  /** Writes the job documents (Range, pooled buffers, the fault rules' shaping). */
  documents: FileSender;
}

/** Registers the connector REST routes. */
export const connectorJobRoutes: RoutePlugin<ConnectorJobRouteContext> = async (app, { context }) => {
  const auth = { preHandler: requireScopes('printing.connectors') };
  const { connectors, jobs, printers, hub, capabilities, documents } = context;
  const caller = (request: FastifyRequest) => {
    const connector = connectors.resolveCaller(request.auth, hostId(request));
    connectors.seen(connector.id);
    return connector;
  };

  app.post(
    '/connector/v1/register',
    {
      ...auth,
      schema: operation('RegisterConnector', connectorJobSchemas.register, connectorRequests.register),
    },
    async (request, reply) => {
      const { connector, created } = connectors.register(request.auth, request.body);
      return reply.status(created ? 201 : 200).send(connectorToWire(connector));
    },
  );

  // A connector uploads the properties of its own printers only: 404 outside the organization,
  // 403 for a printer of another connector (the caller is X-Host-Id, or the one it registered).
  const ownPrinter = (request: FastifyRequest<JobParams>) => {
    const printer = printers.require(request.auth.organizationId, request.params.id);
    if (printer.connectorId !== caller(request).id)
      throw forbidden('the printer belongs to another connector');
    return printer;
  };

  app.put<JobParams>(
    '/connector/v1/printers/:id/properties',
    {
      ...auth,
      schema: operation(
        'ReplacePrinterProperties',
        connectorJobSchemas.properties,
        connectorRequests.properties,
      ),
    },
    async (request, reply) => {
      const properties = parsePropertiesUpload(request.body);
      const printer = ownPrinter(request);
      // Optional: the blob capability defaults in the same request (checked before anything is stored).
      const blob = (request.body as { blob_capabilities?: unknown }).blob_capabilities;
      if (blob !== undefined) capabilities.checkDefaults(blob, 'blob_capabilities');
      printers.uploadProperties(printer.organizationId, printer.id, properties);
      if (blob !== undefined) capabilities.uploadDefaults(printer, { defaults: blob });
      return reply.status(204).send();
    },
  );

  app.patch<JobParams>(
    '/connector/v1/printers/:id/properties',
    {
      ...auth,
      schema: operation(
        'UpdatePrinterProperties',
        connectorJobSchemas.properties,
        connectorRequests.properties,
      ),
    },
    async (request, reply) => {
      capabilities.patchUpload(ownPrinter(request), request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/connector/v1/jobs',
    { ...auth, schema: operation('ListConnectorJobs', connectorJobSchemas.poll, connectorRequests.poll) },
    async (request, reply): Promise<JobPollResponse> => {
      const wait = parseWait((request.query as Record<string, unknown>)['wait']);
      const connector = caller(request);
      let offers = jobs.pendingOffers(connector.id);
      // Only new work ends the wait: re-offered claims ride along, so a connector that already
      // recorded them (its "received" not yet delivered) does not poll in a tight loop.
      if (offers.fresh.length === 0 && wait > 0) {
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        await hub.waitForWork(connector.id, wait * 1000, gone.signal);
        offers = jobs.pendingOffers(connector.id);
      }
      return { jobs: [...offers.reclaimable, ...offers.fresh] };
    },
  );

  app.post<JobParams>(
    '/connector/v1/jobs/:id/claim',
    { ...auth, schema: operation('ClaimJob', connectorJobSchemas.claim, connectorRequests.claim) },
    async (request) => jobs.claim(caller(request), request.params.id),
  );

  app.get<JobParams>(
    '/connector/v1/jobs/:id/document',
    { ...auth, schema: operation('GetJobDocument', connectorJobSchemas.document) },
    async (request, reply) => {
      const claim = parseClaimFlag((request.query as Record<string, unknown>)['claim']);
      const job = jobs.documentFor(caller(request), request.params.id, { claim });
      const { path, size, sha256, contentType } = job.file;
      const file = { path, size, etag: `"${sha256}"`, contentType };
      await documents.send(request, reply, file, job.organizationId);
      return reply;
    },
  );

  app.post<JobParams>(
    '/connector/v1/jobs/:id/events',
    {
      ...auth,
      schema: operation('ReportJobEvents', connectorJobSchemas.jobEvents, connectorRequests.jobEvent),
    },
    async (request, reply) => {
      await jobs.applyEvent(caller(request), request.params.id, request.body);
      return reply.status(204).send();
    },
  );

  app.post(
    '/connector/v1/events',
    { ...auth, schema: operation('ReportEvents', connectorJobSchemas.events, connectorRequests.events) },
    async (request): Promise<JobEventBatchResult> => {
      const connector = caller(request);
      const items = parseEventBatch(request.body);
      const results = await applyEventBatch(
        items,
        (jobId, event) => jobs.applyEvent(connector, jobId, event),
        toHttpError,
      );
      return { results };
    },
  );
};

/** The wait parameter: whole seconds from 0 to MAX_POLL_WAIT_S (default 0: answer at once). */
function parseWait(raw: unknown): number {
  if (raw === undefined || raw === '') return 0;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n > MAX_POLL_WAIT_S) {
    throw new ValidationError('wait', `must be whole seconds from 0 to ${MAX_POLL_WAIT_S}`);
  }
  return n;
}

/** The download's `claim` parameter (protocol 2): `1`/`true` claims an unclaimed job first; absent or `0`/`false` does not. */
function parseClaimFlag(raw: unknown): boolean {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ValidationError('claim', 'must be 1, true, 0 or false');
}
