/**
 * Route schemas of the OAuth authorization server: the token, pairing and revocation endpoints
 * (JSON; errors as RFC 6749 `{error, error_description}` inside the shared error body), the
 * discovery documents and JWKS, and the browser pages (HTML, 303 redirects; a request refused
 * before any page answers the JSON error body). Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { Redirect, otherContent, pageOrError, responses } from '../http/schemas.js';

const tags = ['oauth'];
const clientAuth = [{ basic: [] }, {}] as Record<string, string[]>[];

const TokenResponse = T.Object(
  {
    access_token: T.String(),
    token_type: T.Literal('Bearer'),
    expires_in: T.Integer(),
    scope: T.String(),
    refresh_token: T.Optional(T.String({ description: 'absent for client_credentials' })),
    id_token: T.Optional(T.String({ description: 'when openid was granted' })),
  },
  { additionalProperties: false },
);

const PairingStarted = T.Object(
  {
    pairing_code: T.String(),
    auth_url: T.String({ format: 'uri' }),
    expires_in: T.Integer(),
    interval: T.Integer(),
  },
  { additionalProperties: false },
);

const Metadata = T.Object(
  {
    issuer: T.String(),
    authorization_endpoint: T.String({ format: 'uri' }),
    token_endpoint: T.String({ format: 'uri' }),
    revocation_endpoint: T.String({ format: 'uri' }),
    jwks_uri: T.String({ format: 'uri' }),
    pairing_endpoint: T.String({ format: 'uri' }),
    response_types_supported: T.Array(T.String()),
    response_modes_supported: T.Array(T.String()),
    grant_types_supported: T.Array(T.String()),
    code_challenge_methods_supported: T.Array(T.String()),
    token_endpoint_auth_methods_supported: T.Array(T.String()),
    revocation_endpoint_auth_methods_supported: T.Array(T.String()),
    scopes_supported: T.Array(T.String()),
    subject_types_supported: T.Array(T.String()),
    id_token_signing_alg_values_supported: T.Array(T.String()),
    claims_supported: T.Array(T.String()),
  },
  { additionalProperties: true },
);

const Jwks = T.Object(
  {
    keys: T.Array(
      T.Object(
        {
          kty: T.Literal('RSA'),
          n: T.String(),
          e: T.String(),
          kid: T.String(),
          alg: T.String(),
          use: T.Literal('sig'),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: false },
);

const page = (description: string) => otherContent('text/html', description);

/** Schemas of the OAuth routes. */
export const oauthSchemas = {
  token: {
    tags,
    security: clientAuth,
    description:
      'grant_type password, refresh_token, pairing_code, authorization_code or client_credentials (form-encoded)',
    response: responses({ 200: TokenResponse }, 400, 401, 429),
  },
  pair: { tags, security: clientAuth, response: responses({ 200: PairingStarted }, 400, 401, 429) },
  revoke: {
    tags,
    security: clientAuth,
    response: responses({ 200: T.Object({}, { additionalProperties: false }) }, 400, 401, 429),
  },
  metadata: { tags, response: { 200: Metadata } },
  jwks: { tags, response: { 200: Jwks } },
  /** The authorize and sign-in pages: HTML, or 303 to the client or the next page. */
  browserPage: {
    tags,
    response: {
      200: page('the sign-in or consent page'),
      303: Redirect,
      400: pageOrError('a bad request: an error page, or the JSON error body for a bad form'),
      401: page('the sign-in page again: wrong e-mail or password'),
      403: page('the form expired (CSRF check failed)'),
      404: page('unknown client or pairing code'),
      410: page('the pairing code has expired'),
      429: pageOrError('too many wrong passwords'),
    },
  },
};
