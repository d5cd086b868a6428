/**
 * Typed errors of the emulator's HTTP layer and the one mapping from any thrown error to an
 * HTTP status, headers and JSON body `{ error, message, field?, rule? }`. Routes throw; the
 * error handler (http/error-handler.ts) calls `toHttpError` and answers. An error of a domain's
 * own wire protocol (the OAuth server's) extends WireMappedError and says what it becomes.
 */
import {
  ConflictError,
  type ErrorCode,
  ForbiddenError,
  GoneError,
  NotFoundError,
  PermanentError,
  PrintRelayError,
  RetryableError,
  TooManyRequestsError,
  ValidationError,
  ValidationErrors,
} from '../../lib/errors.js';

/** An error that knows its HTTP status (401, 403, 409, 416, ...). */
export class HttpError extends PrintRelayError<ErrorCode> {
  constructor(
    readonly status: number,
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly field?: string,
  ) {
    super(code, message);
  }
}

/** An OAuth 2.0 error (RFC 6749 section 5.2 / RFC 6750 section 3.1). */
export class OAuthError extends HttpError {
  constructor(status: number, code: ErrorCode, description: string, headers: Record<string, string> = {}) {
    super(status, code, description, headers);
  }
}

/**
 * A service's error whose wire form belongs to a protocol of its domain (RFC 6749 for the OAuth
 * server's): `toHttpError()` gives the HttpError it is answered with.
 */
export abstract class WireMappedError<Code extends ErrorCode = ErrorCode> extends PrintRelayError<Code> {
  abstract toHttpError(): HttpError;
}

/** 401 with `WWW-Authenticate: Bearer error="invalid_token"`. */
export function invalidToken(description: string): OAuthError {
  return new OAuthError(401, 'invalid_token', description, {
    'www-authenticate': `Bearer realm="printrelay", error="invalid_token", error_description="${description}"`,
  });
}

/** 403 insufficient_scope naming the scopes needed (all of them, or one of them). */
export function insufficientScope(required: string[], how: 'all of' | 'one of' = 'all of'): OAuthError {
  const scope = required.join(' ');
  return new OAuthError(403, 'insufficient_scope', `this call needs ${how} the scopes: ${scope}`, {
    'www-authenticate': `Bearer realm="printrelay", error="insufficient_scope", scope="${scope}"`,
  });
}

/**
 * Runs the work of an OAuth endpoint (token, pairing, revocation): a throttle (429) answers in
 * the RFC 6749 section 5.2 shape too, `error` and `error_description`, with its Retry-After.
 */
export async function oauthEndpoint<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof TooManyRequestsError)) throw error;
    throw new OAuthError(429, error.code, error.message, retryAfterHeader(error.retryAfterMs));
  }
}

function retryAfterHeader(retryAfterMs: number | undefined): Record<string, string> {
  return retryAfterMs === undefined
    ? {}
    : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}

/** 409 conflict. */
export function conflict(message: string, field?: string): HttpError {
  return new HttpError(409, 'conflict', message, {}, field);
}

/** 403 for an authenticated caller without the needed role or ownership. */
export function forbidden(message: string): HttpError {
  return new HttpError(403, 'forbidden', message);
}

/** What an error becomes on the wire. */
export interface HttpErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: { error: string; message: string; field?: string; rule?: string; [key: string]: unknown };
}

/** Maps any thrown value to a status and body; unknown errors become 500 without details. */
export function toHttpError(error: unknown): HttpErrorResponse {
  if (error instanceof WireMappedError) return toHttpError(error.toHttpError());
  if (error instanceof OAuthError) {
    const body = { error: error.code, error_description: error.message, message: error.message };
    return { status: error.status, headers: error.headers, body };
  }
  if (error instanceof HttpError) {
    const body = {
      error: error.code,
      message: error.message,
      ...(error.field ? { field: error.field } : {}),
    };
    return { status: error.status, headers: error.headers, body };
  }
  if (error instanceof ValidationError) {
    return { status: 400, headers: {}, body: { ...validationBody(error), errors: [validationBody(error)] } };
  }
  if (error instanceof ValidationErrors) {
    const first = error.errors[0];
    const body = {
      error: 'invalid_request',
      message: error.message,
      ...(first ? { field: first.field, rule: first.rule } : {}),
      errors: error.errors.map(validationBody),
    };
    return { status: 400, headers: {}, body };
  }
  if (error instanceof NotFoundError)
    return { status: 404, headers: {}, body: { error: 'not_found', message: error.message } };
  const domain = fromDomainError(error);
  if (domain) return domain;
  if (error instanceof RetryableError) {
    const headers: Record<string, string> =
      error.retryAfterMs === undefined ? {} : { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)) };
    return { status: 503, headers, body: { error: error.code, message: error.message } };
  }
  if (error instanceof PermanentError)
    return { status: 422, headers: {}, body: { error: error.code, message: error.message } };
  return fromFrameworkError(error);
}

/** Conflict, gone, forbidden and too-many-requests errors raised by services. */
function fromDomainError(error: unknown): HttpErrorResponse | undefined {
  if (error instanceof ConflictError) {
    const body = {
      error: error.code,
      message: error.message,
      ...(error.field ? { field: error.field } : {}),
    };
    return { status: 409, headers: {}, body };
  }
  if (error instanceof GoneError)
    return { status: 410, headers: {}, body: { error: error.code, message: error.message } };
  if (error instanceof ForbiddenError)
    return { status: 403, headers: {}, body: { error: error.code, message: error.message } };
  if (error instanceof TooManyRequestsError) {
    const headers = retryAfterHeader(error.retryAfterMs);
    return { status: 429, headers, body: { error: error.code, message: error.message } };
  }
  return undefined;
}

function validationBody(e: ValidationError): HttpErrorResponse['body'] {
  return { error: 'invalid_request', message: e.message, field: e.field, rule: e.rule };
}

/** Fastify's own errors (bad JSON, wrong content type, too large) carry a 4xx statusCode. */
function fromFrameworkError(error: unknown): HttpErrorResponse {
  const e = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = typeof e.code === 'string' ? e.code.toLowerCase() : 'bad_request';
    return { status: e.statusCode, headers: {}, body: { error: code, message: String(e.message ?? code) } };
  }
  return { status: 500, headers: {}, body: { error: 'internal_error', message: 'internal error' } };
}
