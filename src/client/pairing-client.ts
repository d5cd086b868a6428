/**
 * The pairing-code grant from the device's side (spec/field-notes.md "Pairing-code grant"):
 * ask `POST /oauth/pair/` for a code, let a person bind it at `auth_url`, and poll the token
 * endpoint with `grant_type=pairing_code` until the tokens arrive. Polling follows RFC 8628:
 * `authorization_pending` waits one interval, `slow_down` adds 5 s to the interval for good,
 * `expired_token` / `access_denied` end the wait with a clear PairingError. Used by
 * `printrelay agent pair` and by the demo. Each call closes its own HTTP pool.
 */
import { PermanentError, RetryableError, errorMessage } from '../lib/errors.js';
import { sleep as abortableSleep } from '../lib/abort.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../log/logger.js';
import { HttpClient } from './http-base.js';
import {
  basicAuthHeader,
  type OAuthClientSettings,
  refreshToken,
  type TokenResponse,
} from './oauth-client.js';
import { TokenStore } from './token-store.js';

/** The answer of POST /oauth/pair/. */
export interface PairingCode {
  pairing_code: string;
  /** The page a person opens to sign in and bind the code. */
  auth_url: string;
  /** Seconds the code stays valid, when the server says. */
  expires_in?: number;
  /** Seconds between polls, when the server says. */
  interval?: number;
}

/** The pairing did not complete (expired, refused, unknown code, client not allowed). */
export class PairingError extends PermanentError {}

/** One poll's outcome: tokens, or the OAuth error code and description the server answered. */
export type PairingPollAnswer =
  | { kind: 'tokens'; tokens: TokenResponse }
  | { kind: 'error'; error: string; description: string };

/** What to do after a poll answered with an OAuth error. */
export type PairingStep = { action: 'wait'; intervalMs: number } | { action: 'fail'; message: string };

const EXPIRED_MESSAGE =
  'the pairing code expired before anyone signed in with it: run `printrelay agent pair` again and sign in within the time shown';

/** RFC 8628 3.5: every slow_down adds five seconds to the polling interval. */
export const SLOW_DOWN_STEP_MS = 5000;
/** Polling interval when the server does not name one (RFC 8628 default). */
export const DEFAULT_POLL_INTERVAL_MS = 5000;
/** How long to wait when the server does not say how long the code lives. */
export const DEFAULT_PAIRING_TIMEOUT_MS = 10 * 60_000;

/**
 * Pure: the next step after an OAuth error of a pairing poll. Pending waits the same interval,
 * slow_down waits longer from now on, expired and refused codes end the pairing.
 */
export function pairingPollStep(intervalMs: number, error: string, description: string): PairingStep {
  switch (error) {
    case 'authorization_pending':
      return { action: 'wait', intervalMs };
    case 'slow_down':
      return { action: 'wait', intervalMs: intervalMs + SLOW_DOWN_STEP_MS };
    case 'expired_token':
      return { action: 'fail', message: EXPIRED_MESSAGE };
    case 'access_denied':
      return { action: 'fail', message: 'the pairing was refused at sign-in (access_denied)' };
    case 'invalid_grant':
      return {
        action: 'fail',
        message: `the pairing code is unknown or already used (invalid_grant${detail(description)}): run \`printrelay agent pair\` again`,
      };
    default:
      return {
        action: 'fail',
        message: `the token endpoint refused the pairing: ${error}${detail(description)}`,
      };
  }
}

/** Step 1: asks for a pairing code with `mode=device` and the given scope. */
export async function requestPairingCode(settings: OAuthClientSettings, scope: string): Promise<PairingCode> {
  const { status, body } = await postForm(settings, '/oauth/pair/', { mode: 'device', scope });
  if (status !== 200 && status !== 201) {
    throw new PairingError('pairing_refused', `POST /oauth/pair/ refused: ${oauthErrorText(status, body)}`);
  }
  if (typeof body['pairing_code'] !== 'string' || typeof body['auth_url'] !== 'string') {
    throw new PairingError(
      'invalid_pairing_response',
      'POST /oauth/pair/: answer lacks pairing_code or auth_url',
    );
  }
  const code: PairingCode = { pairing_code: body['pairing_code'], auth_url: body['auth_url'] };
  if (typeof body['expires_in'] === 'number') code.expires_in = body['expires_in'];
  if (typeof body['interval'] === 'number') code.interval = body['interval'];
  return code;
}

/** Step 3, once: the token endpoint's answer to `grant_type=pairing_code`. */
export async function pollPairingOnce(
  settings: OAuthClientSettings,
  pairingCode: string,
  scope: string,
): Promise<PairingPollAnswer> {
  const form = { grant_type: 'pairing_code', pairing_code: pairingCode, scope };
  const { status, body } = await postForm(settings, '/oauth/access_token/', form);
  if (status === 200) {
    if (typeof body['access_token'] !== 'string' || typeof body['expires_in'] !== 'number') {
      throw new PairingError(
        'invalid_token_response',
        'token endpoint: answer lacks access_token or expires_in',
      );
    }
    return { kind: 'tokens', tokens: body as unknown as TokenResponse };
  }
  const error = status < 500 && typeof body['error'] === 'string' ? body['error'] : `http_${status}`;
  const description = typeof body['error_description'] === 'string' ? body['error_description'] : '';
  return { kind: 'error', error, description };
}

/** How waitForPairing waits. */
export interface PairingWaitOptions {
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  /** Overrides the server's interval (tests). */
  intervalMs?: number;
  /** Called after each pending answer. */
  onPending?: (attempt: number) => void;
  /** Injectable for tests; default the abortable sleep of lib/abort.ts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Polls until the code is bound and returns the tokens; throws PairingError when the code
 * expires (by the server's answer or the local deadline) or is refused. Network errors and 5xx
 * answers are retried at the current interval until the deadline.
 */
export async function waitForPairing(
  settings: OAuthClientSettings,
  code: PairingCode,
  scope: string,
  options: PairingWaitOptions,
): Promise<TokenResponse> {
  const wait = options.sleep ?? abortableSleep;
  let intervalMs = options.intervalMs ?? (code.interval ?? DEFAULT_POLL_INTERVAL_MS / 1000) * 1000;
  const deadline =
    options.clock.now() + (code.expires_in ? code.expires_in * 1000 : DEFAULT_PAIRING_TIMEOUT_MS);
  for (let attempt = 1; ; attempt++) {
    const answer = await pollTolerant(settings, code.pairing_code, scope, options.logger);
    if (answer?.kind === 'tokens') return answer.tokens;
    if (answer) {
      const step = pairingPollStep(intervalMs, answer.error, answer.description);
      if (step.action === 'fail') throw new PairingError(answer.error, step.message);
      if (step.intervalMs !== intervalMs)
        options.logger.info({ intervalMs: step.intervalMs }, 'asked to poll slower');
      intervalMs = step.intervalMs;
      options.onPending?.(attempt);
    }
    if (options.clock.now() + intervalMs > deadline) {
      throw new PairingError('expired_token', EXPIRED_MESSAGE);
    }
    await wait(intervalMs, options.signal);
  }
}

/** One poll; a network failure or 5xx is logged and reported as undefined (poll again). */
async function pollTolerant(
  settings: OAuthClientSettings,
  pairingCode: string,
  scope: string,
  logger: Logger,
): Promise<PairingPollAnswer | undefined> {
  try {
    const answer = await pollPairingOnce(settings, pairingCode, scope);
    if (answer.kind === 'error' && /^http_5\d\d$/.test(answer.error)) {
      logger.warn({ error: answer.error }, 'token endpoint failed; polling again');
      return undefined;
    }
    return answer;
  } catch (error) {
    if (!(error instanceof RetryableError)) throw error;
    logger.warn({ error: errorMessage(error) }, 'token endpoint unreachable; polling again');
    return undefined;
  }
}

async function postForm(
  settings: OAuthClientSettings,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const http = new HttpClient({
    baseUrl: settings.authUrl,
    timeoutMs: settings.timeoutMs ?? 30_000,
    ...(settings.ca ? { ca: settings.ca } : {}),
  });
  try {
    const res = await http.request({
      method: 'POST',
      path,
      auth: false,
      headers: {
        accept: 'application/json',
        authorization: basicAuthHeader(settings.clientId, settings.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
      passStatuses: [400, 401, 403, 404, 500, 502, 503, 504],
      ...(settings.signal ? { signal: settings.signal } : {}),
    });
    return { status: res.status, body: parseObject(await res.body.text()) };
  } finally {
    await http.close();
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function oauthErrorText(status: number, body: Record<string, unknown>): string {
  const error = typeof body['error'] === 'string' ? body['error'] : `HTTP ${status}`;
  const description = typeof body['error_description'] === 'string' ? body['error_description'] : '';
  return `${error}${detail(description)}`;
}

function detail(description: string): string {
  return description ? `: ${description}` : '';
}

/** The scopes a connector asks for: the print API and the connector channel. */
export const CONNECTOR_TOKEN_SCOPE = 'printing printing.connectors';

/** What pairConnector needs. */
export interface PairConnectorOptions extends PairingWaitOptions {
  settings: OAuthClientSettings;
  /** Where the tokens go (token-store.ts tokensPath(dataDir)); written with mode 0600. */
  tokensFile: string;
  /** Default CONNECTOR_TOKEN_SCOPE. */
  scope?: string;
  /** Shown the code once it exists: the CLI prints it, the demo approves it in-process. */
  onCode: (code: PairingCode) => void | Promise<void>;
}

/**
 * The whole pairing: asks for a code, hands it to `onCode`, waits until it is bound and stores
 * the tokens atomically in `tokensFile` (mode 0600) for the agent's TokenStore. Returns the
 * granted scope. Throws PairingError when the code expires or is refused.
 */
export async function pairConnector(options: PairConnectorOptions): Promise<{ scope: string | undefined }> {
  const scope = options.scope ?? CONNECTOR_TOKEN_SCOPE;
  const code = await requestPairingCode(options.settings, scope);
  await options.onCode(code);
  const tokens = await waitForPairing(options.settings, code, scope, options);
  const store = new TokenStore({
    path: options.tokensFile,
    clock: options.clock,
    logger: options.logger,
    grants: { refresh: (token, retryKey) => refreshToken(options.settings, token, scope, retryKey) },
  });
  store.save(tokens);
  options.logger.info({ scope: tokens.scope }, 'paired: tokens stored');
  return { scope: tokens.scope };
}
