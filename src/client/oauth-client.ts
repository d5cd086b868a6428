/**
 * OAuth token requests against POST /oauth/access_token/ (form-encoded, Basic client auth):
 * the password grant and the refresh_token grant. Used by the token store, the CLI and the bench.
 */
import { PermanentError } from '../lib/errors.js';
import { HttpClient, HttpError } from './http-base.js';

/** The token endpoint's answer. */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
}

/** Where and as which client tokens are requested. */
export interface OAuthClientSettings {
  /** Base URL of the auth host (the token path is appended). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** PEM of a CA to trust besides the system roots (cloud.ca_file, --ca). */
  ca?: string;
}

/** The token endpoint refused the grant (invalid_grant, invalid_client, ...). */
export class OAuthError extends PermanentError {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(error, message);
  }
}

/** `Basic base64(client_id:client_secret)`; a public client sends an empty secret. */
export function basicAuthHeader(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64')}`;
}

/** Password grant: returns access and refresh token. */
export function fetchPasswordToken(
  settings: OAuthClientSettings,
  username: string,
  password: string,
  scope: string,
): Promise<TokenResponse> {
  return tokenRequest(settings, { grant_type: 'password', username, password, scope });
}

/**
 * Signs in with the password grant and returns an HttpClient (base `settings.authUrl`) that sends
 * the access token. It never refreshes: for short-lived tools, tests and benchmarks (the agent
 * uses TokenStore). The caller closes `http`.
 */
export async function passwordSession(
  settings: OAuthClientSettings,
  username: string,
  password: string,
  scope: string,
  timeoutMs = 60_000,
): Promise<{ http: HttpClient; accessToken: string }> {
  const { access_token } = await fetchPasswordToken(settings, username, password, scope);
  const tokens = { token: async () => access_token, invalidate: () => {} };
  return {
    http: new HttpClient({
      baseUrl: settings.authUrl,
      timeoutMs,
      tokens,
      ...(settings.ca ? { ca: settings.ca } : {}),
    }),
    accessToken: access_token,
  };
}

/**
 * Refresh grant: the refresh token is single-use; the answer carries its replacement.
 * `retryKey` (form field `retry_key`, a PrintRelay extension other servers ignore) lets the
 * emulator answer a retried refresh again instead of revoking the family (token-store.ts).
 */
export function refreshToken(
  settings: OAuthClientSettings,
  refresh: string,
  scope?: string,
  retryKey?: string,
): Promise<TokenResponse> {
  const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refresh };
  if (scope) form.scope = scope;
  if (retryKey) form.retry_key = retryKey;
  return tokenRequest(settings, form);
}

async function tokenRequest(
  settings: OAuthClientSettings,
  form: Record<string, string>,
): Promise<TokenResponse> {
  const http = new HttpClient({
    baseUrl: settings.authUrl,
    timeoutMs: settings.timeoutMs ?? 30_000,
    ...(settings.ca ? { ca: settings.ca } : {}),
  });
  try {
    const body = await http.json<TokenResponse>({
      method: 'POST',
      path: '/oauth/access_token/',
      auth: false,
      headers: {
        authorization: basicAuthHeader(settings.clientId, settings.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
      signal: settings.signal,
    });
    if (!body || typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
      throw new PermanentError(
        'invalid_token_response',
        'token endpoint: answer lacks access_token or expires_in',
      );
    }
    return body;
  } catch (error) {
    if (error instanceof HttpError || (error instanceof Error && error.name === 'AuthError')) {
      throw new OAuthError('token_refused', `token request (${form.grant_type}) refused: ${error.message}`);
    }
    throw error;
  } finally {
    await http.close();
  }
}
