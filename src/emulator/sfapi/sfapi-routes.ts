/**
 * The print submission API (/sfapi/): GetConfiguration, GetPrinter, GetPrinterProperties,
 * PrepareUpload, Print and Status, plus the storage endpoint behind the sasUri it hands out
 * (files/storage-routes.ts). Every /sfapi/ call needs a bearer token with scope `printing`.
 *
 * Decisions where the spec is silent:
 * - Bad requests answer 400 through the emulator's error handler: `{error, message, field,
 *   rule, errors}` (SfapiErrorBody), every broken rule with its field.
 * - GetPrinterProperties refuses a query parameter other than id and printer (400 naming it):
 *   ignoring it would list every printer as if nothing had been asked.
 * - GetPrinterProperties with an id or name the organization does not have answers 404 (the
 *   body names the field); a known printer whose connector has not reported properties yet
 *   gives an empty array; without id or printer, every printer of the organization is listed.
 * - Print with fileurl waits up to `fetchWaitMs` (print-service.ts) for the fetch; a fetch still running answers
 *   412 `{fileid, sasUri: ""}`, a failed one 400 naming `fileurl` with the reason. A document
 *   that is not of its `type` (its first bytes lack the type's signature) is a 400 naming `type`.
 * - Print ignores fields it does not read and names them in X-PrintRelay-Ignored-Fields; with
 *   `Prefer: handling=strict` (RFC 7240) they are a 400 naming each (docs/print-api.md).
 * - An uploaded file is printed once; a second Print with the same fileid is a 400.
 * - A non-admin caller sees and prints to only the printers it may use (assignment-service.ts):
 *   a printer assigned to groups none of which the user is in is as unknown as a missing one.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { PrinterProperties } from '../../protocol/printer-properties.js';
import { sfapiConfiguration, unknownJobStatus } from '../../protocol/sfapi-configuration.js';
import { requireScopes } from '../accounts/bearer-auth.js';
import { HttpError } from '../http/http-errors.js';
import { type DocumentedRequest, operation } from '../http/schemas.js';
import type { Logger } from '../../log/logger.js';
import type { FileStore } from '../files/file-store.js';
import type { AssignmentService } from '../groups/assignment-service.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RouteOptions } from '../http/route-plugin.js';
import type { JobService } from '../jobs/job-service.js';
import type { PrinterService } from '../printers/printer-service.js';
import type { PrintService } from './print-service.js';
import { STORAGE_UPLOAD_PREFIX, storageRoutes } from '../files/storage-routes.js';
import { sfapiRequests, sfapiSchemas } from './sfapi-schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the /sfapi/ routes and the storage endpoint use. */
export interface SfapiRouteContext {
  printers: PrinterService;
  jobs: JobService;
  files: FileStore;
  printing: PrintService;
  assignments: AssignmentService;
  baseUrl: BaseUrlPolicy;
  logger: Logger;
}

/**
 * The /sfapi/ routes and the storage endpoint, as one Fastify plugin over the context's file
 * store and print service.
 */
export async function sfapiRoutes(
  app: FastifyInstance,
  options: RouteOptions<SfapiRouteContext>,
): Promise<void> {
  const { context } = options;
  const { printers, jobs } = context;
  const { files, printing } = context;
  const logger = context.logger.child({ part: 'sfapi' });
  await app.register(storageRoutes, { files, logger });
  const preHandler = requireScopes('printing');
  const auth = (operationId: string, schema: object, documented: DocumentedRequest = sfapiRequests.none) => ({
    preHandler,
    schema: operation(operationId, schema, documented),
  });

  app.get(
    '/sfapi/GetConfiguration/',
    auth('GetConfiguration', sfapiSchemas.getConfiguration),
    async (request) => sfapiConfiguration(baseUrl(request, context)),
  );

  app.get('/sfapi/GetPrinter/', auth('GetPrinter', sfapiSchemas.getPrinter), async (request) =>
    context.assignments
      .usable(request.auth, printers.list(request.auth.organizationId))
      .map((p) => ({ id: p.id, name: p.name, location: p.location ?? '' })),
  );

  app.get(
    '/sfapi/GetPrinterProperties/',
    auth('GetPrinterProperties', sfapiSchemas.getPrinterProperties, sfapiRequests.getPrinterProperties),
    async (request) => printerProperties(request, context),
  );

  app.get('/sfapi/PrepareUpload/', auth('PrepareUpload', sfapiSchemas.prepareUpload), async (request) => {
    const file = await files.prepareUpload(request.auth.organizationId, request.auth.userId);
    const url = `${baseUrl(request, context)}${STORAGE_UPLOAD_PREFIX}${file.fileId}?${files.signUpload(file.fileId)}`;
    return { fileid: file.fileId, sasUri: url };
  });

  app.post(
    '/sfapi/Print/',
    auth('Print', sfapiSchemas.print, sfapiRequests.print),
    async (request, reply) => {
      const strict = prefersStrict(request.headers.prefer);
      if (strict) reply.header('preference-applied', 'handling=strict');
      const outcome = await printing.submit(request.auth, request.body, strict);
      if (outcome.ignored.length > 0) reply.header(IGNORED_FIELDS_HEADER, outcome.ignored.join(', '));
      if ('pendingFileId' in outcome)
        return reply.code(412).send({ fileid: outcome.pendingFileId, sasUri: '' });
      request.log.info(
        { job: outcome.jobid, printer: outcome.printerId, size: outcome.size },
        'print job submitted',
      );
      return { jobid: outcome.jobid };
    },
  );

  app.get('/sfapi/Status/', auth('Status', sfapiSchemas.status, sfapiRequests.status), async (request) => {
    const id = (request.query as Record<string, unknown>).id;
    if (typeof id !== 'string' || id === '') invalid('id', 'is required (the jobid)');
    return jobs.status(request.auth.organizationId, id) ?? unknownJobStatus();
  });
}

/** The answer header of Print naming the body fields nothing read. */
export const IGNORED_FIELDS_HEADER = 'x-printrelay-ignored-fields';

/** True when the request asks for strict input handling (RFC 7240 `Prefer: handling=strict`). */
function prefersStrict(prefer: string | string[] | undefined): boolean {
  const values = Array.isArray(prefer) ? prefer : prefer ? [prefer] : [];
  return values.some((v) => v.split(/[,;]/).some((p) => p.trim().toLowerCase() === 'handling=strict'));
}

function baseUrl(request: FastifyRequest, context: SfapiRouteContext): string {
  return context.baseUrl.forRequest(request);
}

/** Throws the 400 of one broken rule (mapped by the emulator's error handler). */
function invalid(field: string, rule: string): never {
  throw new ValidationErrors([new ValidationError(field, rule)]);
}

function printerProperties(request: FastifyRequest, context: SfapiRouteContext): PrinterProperties[] {
  const { printers, assignments } = context;
  const org = request.auth.organizationId;
  const query = request.query as Record<string, unknown>;
  const unknown = Object.keys(query).filter((k) => k !== 'id' && k !== 'printer');
  if (unknown.length > 0) {
    throw new ValidationErrors(
      unknown.map(
        (k) => new ValidationError(k, 'unknown query parameter; give id or printer, or neither for all'),
      ),
    );
  }
  const id = typeof query.id === 'string' && query.id !== '' ? query.id : undefined;
  const name = typeof query.printer === 'string' && query.printer !== '' ? query.printer : undefined;
  if (id !== undefined && name !== undefined) {
    throw new ValidationErrors([
      new ValidationError('id', 'give id or printer, not both'),
      new ValidationError('printer', 'give id or printer, not both'),
    ]);
  }
  if (id !== undefined && !UUID.test(id)) invalid('id', 'must be a UUID');
  if (id === undefined && name === undefined) {
    return assignments
      .usable(request.auth, printers.list(org))
      .flatMap((p) => printers.properties(org, p.id) ?? []);
  }
  const printer =
    id !== undefined ? printers.findById(org, id.toLowerCase()) : printers.findByName(org, name!);
  if (!printer || !assignments.canUse(request.auth, printer)) {
    const field = id !== undefined ? 'id' : 'printer';
    throw new HttpError(404, 'not_found', `${field}: no such printer in your organization`, {}, field);
  }
  const properties = printers.properties(org, printer.id);
  return properties ? [properties] : [];
}
