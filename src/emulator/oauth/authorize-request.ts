/**
 * Validation of an authorization request (GET or POST /oauth/authorize) per RFC 6749 section
 * 4.1.2.1: an unknown client or a missing, invalid or unregistered redirect_uri gives an error
 * page (never a redirect); every other problem a redirect to the client with `error`. PKCE
 * (S256) is required for public clients and checked when a confidential client sends it.
 * Reads the store only; nothing to clean up.
 */
import { ValidationError } from '../../lib/errors.js';
import { errorRedirect, matchRedirectUri } from '../../protocol/oauth-redirect-uri.js';
import { grantableScopes } from '../../protocol/oauth-scopes.js';
import type { OAuthRecords } from './oauth-records.js';
import type { OAuthClient } from '../clients/clients-face.js';
import { parseCodeChallenge } from './pkce.js';

/** Parameters of an authorization request that are carried through the sign-in and consent forms. */
export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
] as const;

/** The carried parameters as strings. */
export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

/** A valid authorization request. */
export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  nonce: string | undefined;
  /** The parameters to carry through the forms. */
  carry: AuthorizeParams;
}

/** Outcome of validation: a request, an error page, or an error redirect. */
export type AuthorizeCheck =
  | { kind: 'ok'; request: AuthorizeRequest }
  | { kind: 'page'; status: number; title: string; message: string; error: string }
  | { kind: 'redirect'; location: string };

/** Picks the carried parameters out of a query or form (strings only). */
export function authorizeParams(source: Record<string, unknown>): AuthorizeParams {
  const params: AuthorizeParams = {};
  for (const name of AUTHORIZE_PARAMS) {
    const value = source[name];
    if (typeof value === 'string') params[name] = value;
  }
  return params;
}

/** Validates an authorization request against the stored client. */
export function checkAuthorizeRequest(
  records: Pick<OAuthRecords, 'clients'>,
  params: AuthorizeParams,
): AuthorizeCheck {
  const client = params.client_id ? records.clients.findById(params.client_id) : undefined;
  if (!client || client.deletedAt !== null) {
    return page(400, 'Unknown application', 'client_id: no such application', 'invalid_client');
  }
  const redirectUri = resolveRedirect(client, params.redirect_uri);
  if (redirectUri === undefined) {
    return page(
      400,
      'Invalid redirect URI',
      'redirect_uri: missing or not registered for this application',
      'invalid_request',
    );
  }
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    location: errorRedirect(redirectUri, { error, errorDescription: description, ...stateOf(params) }),
  });
  if (!params.response_type) return fail('invalid_request', 'response_type: required');
  if (params.response_type !== 'code') return fail('unsupported_response_type', 'response_type: only code');
  if (!client.grantTypes.includes('authorization_code')) {
    return fail('unauthorized_client', 'the client may not use the authorization code grant');
  }
  const scopes = grantableScopes(params.scope, client.allowedScopes, 'authorization_code');
  if (!scopes.ok) return fail(scopes.error, scopes.description);
  let codeChallenge: string | undefined;
  try {
    const needsPkce = client.clientType === 'public' || params.code_challenge !== undefined;
    const sentMethod = params.code_challenge_method !== undefined;
    if (needsPkce || sentMethod)
      codeChallenge = parseCodeChallenge(params.code_challenge, params.code_challenge_method);
  } catch (error) {
    if (error instanceof ValidationError) return fail('invalid_request', error.message);
    throw error;
  }
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      scopes: scopes.scopes,
      state: params.state,
      codeChallenge,
      nonce: params.nonce,
      carry: params,
    },
  };
}

/** The error redirect for a valid request (access_denied and friends). */
export function denyRedirect(request: AuthorizeRequest, error: string, description: string): string {
  return errorRedirect(request.redirectUri, {
    error,
    errorDescription: description,
    ...(request.state === undefined ? {} : { state: request.state }),
  });
}

function resolveRedirect(client: OAuthClient, presented: string | undefined): string | undefined {
  if (presented === undefined || presented === '') {
    // RFC 6749 section 3.1.2.3: optional only when exactly one URI is registered.
    return client.redirectUrls.length === 1 ? client.redirectUrls[0] : undefined;
  }
  return matchRedirectUri(client.redirectUrls, presented);
}

function stateOf(params: AuthorizeParams): { state?: string } {
  return params.state === undefined ? {} : { state: params.state };
}

function page(status: number, title: string, message: string, error: string): AuthorizeCheck {
  return { kind: 'page', status, title, message, error };
}
