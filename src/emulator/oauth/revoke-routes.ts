/**
 * POST /oauth/revoke/ (RFC 7009): a client revokes one of its own tokens. A refresh token
 * revokes its whole family (the sign-in); an access token is refused from then on until it
 * would have expired. Unknown, foreign or already invalid tokens also answer 200 (RFC 7009
 * section 2.2), so the answer reveals nothing.
 */
import { decodeJwt } from 'jose';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { RefreshTokenRepo } from './refresh-token-repo.js';
import type { TokenService } from './token-service.js';
import { OAuthError } from '../http/http-errors.js';
import type { OAuthClient } from '../clients/clients-face.js';
import { authenticateClient, formFields } from './client-authentication.js';
import { oauthRequests } from './oauth-request-schemas.js';
import { oauthSchemas } from './oauth-schemas.js';
import { operation } from '../http/schemas.js';

/** What the revocation endpoint uses. */
export interface RevokeRouteContext {
  tokens: TokenService;
  refreshTokens: RefreshTokenRepo;
  clock: Clock;
  logger: Logger;
}

/** Registers the revocation endpoint. */
export const oauthRevokeRoutes: RoutePlugin<RevokeRouteContext> = async (app, { context }) => {
  app.post(
    '/oauth/revoke',
    { schema: operation('RevokeToken', oauthSchemas.revoke, oauthRequests.revoke) },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const form = formFields(request.body);
      const client = await authenticateClient(request, form, context.tokens);
      const token = form['token'];
      if (!token) throw new OAuthError(400, 'invalid_request', 'token: required');
      const hint = form['token_type_hint'];
      if (hint === 'access_token') {
        if (!(await revokeAccess(context, client, token))) revokeRefresh(context, client, token);
      } else if (!revokeRefresh(context, client, token)) {
        await revokeAccess(context, client, token);
      }
      return reply.status(200).send({});
    },
  );
};

function revokeRefresh(context: RevokeRouteContext, client: OAuthClient, token: string): boolean {
  const record = context.refreshTokens.find(token);
  if (!record || record.clientId !== client.clientId) return false;
  context.refreshTokens.revokeFamily(record.familyId, context.clock.now());
  context.logger.info({ client: client.clientId }, 'refresh token family revoked');
  return true;
}

async function revokeAccess(
  context: RevokeRouteContext,
  client: OAuthClient,
  token: string,
): Promise<boolean> {
  if (token.split('.').length !== 3) return false;
  try {
    await context.tokens.verifyAccessToken(token);
  } catch {
    return false; // expired, revoked or not ours: nothing left to revoke
  }
  const claims = decodeJwt(token);
  if (
    claims['client_id'] !== client.clientId ||
    typeof claims.jti !== 'string' ||
    typeof claims.exp !== 'number'
  ) {
    return false;
  }
  context.tokens.revokeAccessToken(claims.jti, claims.exp);
  context.logger.info({ client: client.clientId }, 'access token revoked');
  return true;
}
