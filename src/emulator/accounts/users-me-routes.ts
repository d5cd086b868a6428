/**
 * GET /v1/users/me/: the caller's own account user (admin spec "Account user"), for a token with
 * the `account` scope.
 */
import type { EmulatorRoutePlugin } from '../context.js';
import { requireScopes } from '../http/bearer-auth.js';
import { invalidToken } from '../http/http-errors.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import type { User } from './user-repo.js';

/** The account-user resource of a stored user. */
export function accountUser(user: User): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    display_name: `${user.firstName} ${user.lastName}`.trim(),
    date_joined: new Date(user.createdAt).toISOString(),
    cloud_profile: null,
    id_profile: null,
    user_invitations: null,
    roles: user.roles,
    is_verified: true,
    organization_id: user.organizationId,
  };
}

/** Registers GET /v1/users/me/. */
export const usersMeRoutes: EmulatorRoutePlugin = async (app, { context }) => {
  app.get('/v1/users/me', { preHandler: requireScopes(REQUIRED_SCOPE.account) }, async (request) => {
    const user = context.store.users.findById(request.auth.userId);
    if (!user) throw invalidToken('the user of the token no longer exists');
    return accountUser(user);
  });
};
