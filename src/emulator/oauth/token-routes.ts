/**
 * POST /oauth/access_token/: the token endpoint (form-encoded). Client authentication by
 * `Authorization: Basic` or client_id/client_secret form fields; grants password and
 * refresh_token (rotating), pairing_code (services/pairing.ts), authorization_code
 * (services/authorization-codes.ts) and client_credentials. Errors follow RFC 6749 section 5.2.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { AuthorizationCodeService } from './authorization-codes.js';
import type { PairingService } from './pairing.js';
import type { TokenService } from './token-service.js';
import { OAuthError, oauthEndpoint } from '../http/http-errors.js';
import { type Form, authenticateClient, formFields } from './client-authentication.js';
import type { OAuthClient } from '../clients/clients-face.js';
import type { TokenResponse } from './token-types.js';
import { oauthRequests } from './oauth-request-schemas.js';
import { oauthSchemas } from './oauth-schemas.js';
import { operation } from '../http/schemas.js';

/** What the token endpoint uses: the grants' services. */
export interface TokenRouteContext {
  tokens: TokenService;
  pairings: PairingService;
  authorizationCodes: AuthorizationCodeService;
}

/**
 * A grant type's handler: the authenticated client, the form fields and the request's source
 * address (for throttling password checks) in, a token response out.
 */
export type GrantHandler = (
  client: OAuthClient,
  form: Form,
  context: TokenRouteContext,
  source: string,
) => Promise<TokenResponse>;

/** The grants this endpoint serves, by grant_type. */
export const grantHandlers = new Map<string, GrantHandler>([
  [
    'password',
    (client, form, ctx, source) =>
      ctx.tokens.passwordGrant(client, {
        username: required(form, 'username'),
        password: required(form, 'password'),
        scope: form['scope'],
        source,
      }),
  ],
  [
    'refresh_token',
    (client, form, ctx) =>
      ctx.tokens.refreshGrant(client, required(form, 'refresh_token'), form['scope'], form['retry_key']),
  ],
  [
    'pairing_code',
    (client, form, ctx) => ctx.pairings.poll(client, required(form, 'pairing_code'), form['scope']),
  ],
  [
    'authorization_code',
    (client, form, ctx) =>
      ctx.authorizationCodes.redeem(client, {
        code: required(form, 'code'),
        redirectUri: form['redirect_uri'],
        codeVerifier: form['code_verifier'],
        scope: form['scope'],
      }),
  ],
  ['client_credentials', (client, form, ctx) => ctx.tokens.clientCredentialsGrant(client, form['scope'])],
]);

/** Registers the token endpoint. */
export const oauthTokenRoutes: RoutePlugin<TokenRouteContext> = async (app, { context }) => {
  app.post(
    '/oauth/access_token',
    { schema: operation('RequestAccessToken', oauthSchemas.token, oauthRequests.token) },
    async (request, reply) => oauthEndpoint(() => tokenEndpoint(request, reply, context)),
  );
};

async function tokenEndpoint(
  request: FastifyRequest,
  reply: FastifyReply,
  context: TokenRouteContext,
): Promise<TokenResponse> {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  const form = formFields(request.body);
  const grantType = form['grant_type'];
  if (!grantType) throw missing('grant_type');
  const client = await authenticateClient(request, form, context.tokens);
  const handler = grantHandlers.get(grantType);
  if (!handler)
    throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
  return handler(client, form, context, request.ip);
}

function required(form: Form, field: string): string {
  const value = form[field];
  if (value === undefined || value === '') throw missing(field);
  return value;
}

function missing(field: string): OAuthError {
  return new OAuthError(400, 'invalid_request', `${field}: required`);
}
