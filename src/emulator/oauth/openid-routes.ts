/**
 * GET /.well-known/openid-configuration (and the RFC 8414 alias
 * /.well-known/oauth-authorization-server): the emulator's authorization server metadata, so
 * standard OAuth/OpenID client libraries configure themselves. Endpoints are absolute URLs of
 * the public URL (or the request's origin); the issuer is the tokens' `iss`.
 */
import type { FastifyRequest } from 'fastify';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { TokenService } from './token-service.js';
import { requestBaseUrl } from '../http/pagination.js';
import { operation } from '../http/schemas.js';
import { DEFAULT_GRANTABLE_SCOPES } from '../../protocol/oauth-scopes.js';
import { oauthSchemas } from './oauth-schemas.js';

/** What the discovery documents use: the tokens' issuer and the public base URL. */
export interface OpenIdRouteContext {
  tokens: TokenService;
  baseUrl: BaseUrlPolicy;
}

/** The metadata document for a request. */
export function serverMetadata(
  request: FastifyRequest,
  context: OpenIdRouteContext,
): Record<string, unknown> {
  const base = requestBaseUrl(request, context.baseUrl);
  return {
    issuer: context.tokens.issuer,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/access_token/`,
    revocation_endpoint: `${base}/oauth/revoke/`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    pairing_endpoint: `${base}/oauth/pair/`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [
      'authorization_code',
      'refresh_token',
      'pairing_code',
      'password',
      'client_credentials',
    ],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: [...DEFAULT_GRANTABLE_SCOPES],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'email',
      'email_verified',
      'name',
      'given_name',
      'family_name',
    ],
  };
}

/** Registers the discovery documents. */
export const openidRoutes: RoutePlugin<OpenIdRouteContext> = async (app, { context }) => {
  const documents: [string, string][] = [
    ['/.well-known/openid-configuration', 'GetOpenIdConfiguration'],
    ['/.well-known/oauth-authorization-server', 'GetAuthorizationServerMetadata'],
  ];
  for (const [path, operationId] of documents) {
    app.get(path, { schema: operation(operationId, oauthSchemas.metadata) }, async (request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return serverMetadata(request, context);
    });
  }
};
