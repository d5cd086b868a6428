/**
 * The form-encoded requests of the OAuth endpoints: the form's fields, and the client's
 * authentication that POST /oauth/access_token/, /oauth/pair/ and /oauth/revoke/ share: client
 * id and secret from `Authorization: Basic` (preferred) or the client_id / client_secret form
 * fields, checked by the token service. Every refusal is 401 invalid_client with
 * `WWW-Authenticate: Basic realm="printrelay"` (RFC 6749 section 5.2).
 */
import type { FastifyRequest } from 'fastify';
import type { OAuthClient } from '../clients/clients-face.js';
import { OAuthError, oauthEndpoint } from '../http/http-errors.js';
import type { TokenService } from './token-service.js';

/** A parsed form body. */
export type Form = Record<string, string | undefined>;

/** The form body as strings; anything else is invalid_request. */
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

/** Client id and secret from the Basic header (preferred) or the form fields. */
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

/**
 * The client the request authenticates as, checked by `tokens` (a throttled check answers 429
 * in the OAuth shape); throws 401 invalid_client when the credentials are missing or wrong.
 */
export async function authenticateClient(
  request: FastifyRequest,
  form: Form,
  tokens: Pick<TokenService, 'authenticateClient'>,
): Promise<OAuthClient> {
  const credentials = clientCredentials(request, form);
  return oauthEndpoint(() => tokens.authenticateClient(credentials.id, credentials.secret, request.ip));
}

function invalidClient(description: string): OAuthError {
  return new OAuthError(401, 'invalid_client', description, {
    'www-authenticate': 'Basic realm="printrelay"',
  });
}
