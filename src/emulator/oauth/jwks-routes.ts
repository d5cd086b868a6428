/**
 * GET /.well-known/jwks.json: the public keys that verify the emulator's access tokens.
 */
import type { RoutePlugin } from '../http/route-plugin.js';
import type { TokenService } from './token-service.js';
import { oauthSchemas } from './oauth-schemas.js';
import { operation } from '../http/schemas.js';

/** What the JWKS route uses. */
export interface JwksRouteContext {
  tokens: TokenService;
}

/** Registers the JWKS route. */
export const jwksRoutes: RoutePlugin<JwksRouteContext> = async (app, { context }) => {
  app.get(
    '/.well-known/jwks.json',
    { schema: operation('GetJwks', oauthSchemas.jwks) },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return context.tokens.jwks();
    },
  );
};
