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

/** A parsed form body. */
export type Form = Record<string, string | undefined>;

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
  const credentials = clientCredentials(request, form);
  const client = await context.tokens.authenticateClient(credentials.id, credentials.secret, request.ip);
  const handler = grantHandlers.get(grantType);
  if (!handler)
    throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
  return handler(client, form, context, request.ip);
}

/** The form body as strings; anything else is invalid_request (also /oauth/pair/, /oauth/revoke/). */
export function formFields(body: unknown): Form {
  if (typeof body !== 'object' || body === null) {
    throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const form: Form = {};
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) throw new OAuthError(400, 'invalid_request', `${key}: must appear once`);
    form[key] = typeof value === 'string' ? value : undefined;
  }
  return form;
}

/** Client id and secret from the Basic header (preferred) or the form fields (also /oauth/pair/, /oauth/revoke/). */
export function clientCredentials(request: FastifyRequest, form: Form): { id: string; secret: string } {
  const header = request.headers.authorization;
  if (typeof header === 'string' && /^Basic\s/i.test(header)) {
    const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient('the Basic credentials must be client_id:client_secret');
    return { id: safeDecode(decoded.slice(0, colon)), secret: safeDecode(decoded.slice(colon + 1)) };
  }
  const id = form['client_id'];
  if (!id) throw invalidClient('client authentication is required (Basic header or client_id)');
  return { id, secret: form['client_secret'] ?? '' };
}

/**
 * RFC 6749 2.3.1: Basic credentials are form-url-encoded before base64. Values without a percent
 * escape pass unchanged (many clients do not encode), so a literal '+' stays a '+'.
 */
function safeDecode(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function required(form: Form, field: string): string {
  const value = form[field];
  if (value === undefined || value === '') throw missing(field);
  return value;
}

function missing(field: string): OAuthError {
  return new OAuthError(400, 'invalid_request', `${field}: required`);
}

function invalidClient(description: string): OAuthError {
  return new OAuthError(401, 'invalid_client', description, {
    'www-authenticate': 'Basic realm="printrelay"',
  });
}
