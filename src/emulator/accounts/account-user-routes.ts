/**
 * Account users of the caller's organization ({auth_url}):
 *   GET    /v1/users/        paginated (limit/offset, or page/per_page); admin: every member, user: self
 *   GET    /v1/users/<id>/   account user (another organization's user, or another user for a non-admin: 404)
 *   PATCH  /v1/users/<id>/   first_name, last_name, email, roles (roles: admin only); other fields 400
 *   DELETE /v1/users/<id>/   204 (admin); the last admin stays (409 last_admin)
 * Needs a bearer token with the `account` scope. /v1/users/me/ is served by users-me-routes.ts.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { ForbiddenError } from '../../lib/errors.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import { requireScopes } from './bearer-auth.js';
import { envelope, parsePage } from '../http/pagination.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import type { AccountCaller, AccountUserService } from './account-user-service.js';
import { accountRequests, accountUserSchemas } from './account-schemas.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };

/** The account API's view of the authenticated caller. */
export function accountCaller(request: FastifyRequest): AccountCaller {
  const auth = request.auth;
  return {
    organizationId: auth.organizationId,
    userId: () => auth.userId,
    isAdmin: auth.roles.includes('admin'),
  };
}

/** A preHandler: 403 unless the caller is an admin of its organization (`what` names the API). */
export function requireAccountAdmin(what: string): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!request.auth.roles.includes('admin'))
      throw new ForbiddenError(`${what} need the admin role of the organization`);
  };
}

/** What the account-user routes use. */
export interface AccountUserRouteContext {
  accountUsers: AccountUserService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the account-user routes. */
export const accountUserRoutes: RoutePlugin<AccountUserRouteContext> = async (app, { context }) => {
  const { accountUsers, baseUrl } = context;
  const auth = { preHandler: requireScopes(REQUIRED_SCOPE.account) };

  app.get(
    '/v1/users',
    { ...auth, schema: operation('ListAccountUsers', accountUserSchemas.list) },
    async (request) => {
      const page = parsePage(request.query as Record<string, unknown>, { pageNumbers: true });
      const { count, results } = accountUsers.list(accountCaller(request), page.limit, page.offset);
      return envelope(request, baseUrl, page, count, results);
    },
  );

  app.get<IdParams>(
    '/v1/users/:id',
    { ...auth, schema: operation('GetAccountUser', accountUserSchemas.get) },
    async (request) => accountUsers.get(accountCaller(request), request.params.id),
  );

  app.patch<IdParams>(
    '/v1/users/:id',
    { ...auth, schema: operation('UpdateAccountUser', accountUserSchemas.patch, accountRequests.patchUser) },
    async (request) => accountUsers.patch(accountCaller(request), request.params.id, request.body ?? {}),
  );

  app.delete<IdParams>(
    '/v1/users/:id',
    { ...auth, schema: operation('DeleteAccountUser', accountUserSchemas.delete) },
    async (request, reply) => {
      accountUsers.remove(accountCaller(request), request.params.id);
      return reply.status(204).send();
    },
  );
};
