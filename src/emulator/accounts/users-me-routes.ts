/**
 * GET /v1/users/me/ (slash optional): the caller's own account user (admin spec "Account user")
 * for any valid user token, whatever its scopes: a web client signed in with `printing` only
 * asks who signed in right after the sign-in. A client_credentials token has no user (403).
 */
import { usersMeSchema } from './account-schemas.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import { requireScopes } from './bearer-auth.js';
import { invalidToken } from '../http/http-errors.js';
import type { User, UserRepo } from './user-repo.js';
import { accountUserResource } from './account-user-service.js';
import { operation } from '../http/schemas.js';

/** The account-user resource of a stored user, with its home organization. */
export function accountUser(user: User): Record<string, unknown> {
  return { ...accountUserResource(user), organization_id: user.organizationId };
}

/** What GET /v1/users/me/ uses: the caller's user record. */
export interface UsersMeRouteContext {
  users: Pick<UserRepo, 'findById'>;
}

/** Registers GET /v1/users/me/. */
export const usersMeRoutes: RoutePlugin<UsersMeRouteContext> = async (app, { context }) => {
  app.get(
    '/v1/users/me',
    { preHandler: requireScopes(), schema: operation('GetCurrentUser', usersMeSchema) },
    async (request) => {
      const user = context.users.findById(request.auth.userId);
      if (!user) throw invalidToken('the user of the token no longer exists');
      return accountUser(user);
    },
  );
};
