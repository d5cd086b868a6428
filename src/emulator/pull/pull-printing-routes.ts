/**
 * Pull printing in the emulator, as one Fastify plugin over the pull-printing services of the
 * context (pull-services.ts: queue printers and held jobs, device auth, local jobs, registration
 * codes, running releases). It registers
 *  - GET /TPFM/ (tpfm/tpfm-routes.ts),
 *  - POST /printing/v1/printers/<id>/pull_printing_pairing/ {code}: admin only; the code a
 *    release station shows becomes the printer's pull-printing password (the station then
 *    authenticates with it), making the printer a pull printer,
 *  - GET /printing/v1/printers/<id>/local_jobs: admin only; the copy jobs devices recorded at
 *    the printer with CreateLocalJob / UpdateLocalJob, newest first (state after the 24 h rule),
 *  - POST /v1/users/me/cards/claim/ {code}: the bearer token's user claims a registration code,
 *  - the portal claim page (cards/portal-routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { UserSignIn } from '../accounts/user-sign-in.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RouteOptions } from '../http/route-plugin.js';
import type { PrinterService } from '../printers/printer-service.js';
import type { CredentialGuard } from '../store/credential-guard.js';
import type { TpfmServices } from './pull-services.js';
import { requireAnyScope } from '../accounts/bearer-auth.js';
import { forbidden } from '../http/http-errors.js';
import { claimPageRoutes } from './cards/portal-routes.js';
import { tpfmRoutes } from './tpfm/tpfm-routes.js';
import { pullRequests, pullSchemas } from './pull-schemas.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };

function codeOf(body: unknown, min: number, max: number): string {
  const code = (body as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || code.trim().length < min || code.trim().length > max) {
    throw new ValidationError('code', `is required: a string of ${min} to ${max} characters`);
  }
  return code.trim();
}

/** What pull printing uses: its services, the printers admins name, the password hasher, sign-in. */
export interface PullPrintingRouteContext {
  pull: TpfmServices;
  printers: PrinterService;
  credentials: CredentialGuard;
  signIn: UserSignIn;
  baseUrl: BaseUrlPolicy;
  logger: Logger;
}

/** Registers pull printing; see the file comment. */
export async function pullPrintingRoutes(
  app: FastifyInstance,
  { context }: RouteOptions<PullPrintingRouteContext>,
): Promise<void> {
  const logger = context.logger.child({ part: 'pull-printing' });
  const services = context.pull;
  await app.register(tpfmRoutes, { baseUrl: context.baseUrl, services });
  await app.register(claimPageRoutes, { signIn: context.signIn, registration: services.registration });
  const anyToken = { preHandler: requireAnyScope('printing', 'printing.connectors', 'account') };

  app.post<IdParams>(
    '/printing/v1/printers/:id/pull_printing_pairing',
    { ...anyToken, schema: operation('SetPullPrintingPairing', pullSchemas.pairing, pullRequests.pairing) },
    async (request) => {
      if (!request.auth.roles.includes('admin'))
        throw forbidden('pairing a release station needs the admin role');
      const org = request.auth.organizationId;
      const printer = context.printers.findById(org, request.params.id);
      if (!printer) throw new NotFoundError(`printer ${request.params.id}`);
      if (services.queue.ensureQueue(org).printerId === printer.id) {
        throw new ValidationError('id', 'the pull-printing queue cannot be a pull printer');
      }
      const hash = await context.credentials.hasher.hash(codeOf(request.body, 4, 128));
      services.printerRecords.pullPasswords.setPullPrintingPasswordHash(org, printer.name, hash);
      logger.info({ printer: printer.name }, 'release station paired');
      return { printer_id: printer.id, pull_printing: true };
    },
  );

  // Copy jobs devices recorded at the printer (CreateLocalJob / UpdateLocalJob): an admin read.
  app.get<IdParams>(
    '/printing/v1/printers/:id/local_jobs',
    { ...anyToken, schema: operation('ListLocalJobs', pullSchemas.localJobs) },
    async (request) => {
      if (!request.auth.roles.includes('admin')) throw forbidden('reading local jobs needs the admin role');
      const org = request.auth.organizationId;
      const printer = context.printers.findById(org, request.params.id);
      if (!printer) throw new NotFoundError(`printer ${request.params.id}`);
      const jobs = services.localJobs.listForPrinter(org, printer.id).map((job) => ({
        id: job.id,
        user_id: job.userId,
        type: job.type,
        state: job.state,
        fields: job.fields,
        created_at: new Date(job.createdAt).toISOString(),
        updated_at: new Date(job.updatedAt).toISOString(),
      }));
      return { printer_id: printer.id, local_jobs: jobs };
    },
  );

  app.post(
    '/v1/users/me/cards/claim',
    {
      preHandler: requireAnyScope('printing', 'account'),
      schema: operation('ClaimCard', pullSchemas.cardClaim, pullRequests.cardClaim),
    },
    async (request) => {
      const user = { id: request.auth.userId, organizationId: request.auth.organizationId };
      const result = services.registration.claim(user, codeOf(request.body, 4, 16));
      return { card_linked: result.cardLinked };
    },
  );
}
