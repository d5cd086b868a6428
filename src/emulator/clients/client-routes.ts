/**
 * /v1/oauth-clients/: OAuth client management for organization admins (spec section C), over
 * services/oauth-client-service.ts. Needs a bearer token with the `account` scope (401 without
 * a valid token, 403 insufficient_scope without the scope) of an organization admin (403). A
 * client_credentials token is no admin's: it has no user, so it gets 403 naming that rule.
 */
import type { FastifyRequest } from 'fastify';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import { requireScopes } from '../accounts/bearer-auth.js';
import { forbidden } from '../http/http-errors.js';
import { envelope, parsePage } from '../http/pagination.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import type { Creator } from './client-creation-limits.js';
import type { OAuthClientService } from './oauth-client-service.js';
import { clientRequests, clientSchemas } from './client-schemas.js';
import { operation } from '../http/schemas.js';

interface IdParams {
  Params: { clientId: string };
}

/** What the client-management routes use. */
export interface ClientRouteContext {
  oauthClients: OAuthClientService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the client-management routes. */
export const oauthClientRoutes: RoutePlugin<ClientRouteContext> = async (app, { context }) => {
  const service = context.oauthClients;
  const auth = { preHandler: [requireScopes(REQUIRED_SCOPE.account), requireAdmin] };

  app.post(
    '/v1/oauth-clients/public',
    {
      ...auth,
      schema: operation('CreatePublicOAuthClient', clientSchemas.create, clientRequests.createPublic),
    },
    async (request, reply) => {
      reply.status(201).header('cache-control', 'no-store');
      return service.create(creator(request), 'public', request.body);
    },
  );

  app.post(
    '/v1/oauth-clients/confidential',
    {
      ...auth,
      schema: operation(
        'CreateConfidentialOAuthClient',
        clientSchemas.create,
        clientRequests.createConfidential,
      ),
    },
    async (request, reply) => {
      reply.status(201).header('cache-control', 'no-store');
      return service.create(creator(request), 'confidential', request.body);
    },
  );

  app.get(
    '/v1/oauth-clients',
    { ...auth, schema: operation('ListOAuthClients', clientSchemas.list, clientRequests.list) },
    async (request) => {
      const page = parsePage(request.query as Record<string, unknown>);
      const { count, results } = service.list(request.auth.organizationId, page.limit, page.offset);
      return envelope(request, context.baseUrl, page, count, results);
    },
  );

  app.get<IdParams>(
    '/v1/oauth-clients/:clientId',
    { ...auth, schema: operation('GetOAuthClient', clientSchemas.get) },
    async (request) => service.get(request.auth.organizationId, request.params.clientId),
  );

  app.patch<IdParams>(
    '/v1/oauth-clients/:clientId',
    { ...auth, schema: operation('UpdateOAuthClient', clientSchemas.patch, clientRequests.patch) },
    async (request) =>
      service.patch(request.auth.organizationId, request.params.clientId, request.body ?? {}),
  );

  app.delete<IdParams>(
    '/v1/oauth-clients/:clientId',
    { ...auth, schema: operation('DeleteOAuthClient', clientSchemas.delete) },
    async (request, reply) => {
      service.delete(request.auth.organizationId, request.params.clientId);
      return reply.status(204).send();
    },
  );
};

async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (request.auth.kind === 'client') {
    throw forbidden(
      "client management needs an organization admin's token; a client_credentials token stands for " +
        'its client alone (no user, no role)',
    );
  }
  if (!request.auth.roles.includes('admin')) throw forbidden('client management needs an organization admin');
}

function creator(request: FastifyRequest): Creator {
  return { userId: request.auth.userId, organizationId: request.auth.organizationId };
}
