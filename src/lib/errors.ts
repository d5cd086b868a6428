/**
 * Typed errors shared by every part. Each carries a stable `code`; HTTP layers map codes to
 * status codes in one place (emulator/http/http-errors.ts); services raise these and never an HTTP error, the agent's loops decide retry or give up
 * with the guards below.
 */
/**
 * The codes of the typed errors whose code is checked: lib's own below; a layer that raises
 * codes of its own lists them in one module of its own by adding to this interface (declaration
 * merging; the emulator's: emulator/error-codes.ts), so a misspelled code, at a throw site or in
 * a comparison, fails the type check. Each value names the layer that declared the code.
 */
export interface ErrorCodes {
  invalid_request: 'lib';
  not_found: 'lib';
  conflict: 'lib';
  gone: 'lib';
  forbidden: 'lib';
  too_many_requests: 'lib';
}

/** A declared error code (see ErrorCodes). */
export type ErrorCode = keyof ErrorCodes;

/** Whether `error` is one of the typed errors and carries `code`. */
export function hasErrorCode(error: unknown, code: ErrorCode): error is PrintRelayError {
  return error instanceof PrintRelayError && error.code === code;
}

export class PrintRelayError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input: names the field and the rule it broke. */
export class ValidationError extends PrintRelayError<'invalid_request'> {
  constructor(
    readonly field: string,
    readonly rule: string,
    message?: string,
  ) {
    super('invalid_request', message ?? `${field}: ${rule}`);
  }
}

/** Several validation failures reported at once. */
export class ValidationErrors extends PrintRelayError<'invalid_request'> {
  constructor(readonly errors: ValidationError[]) {
    super('invalid_request', errors.map((e) => e.message).join('; '));
  }
}

/** Something that may succeed when tried again later (busy printer, network outage). */
export class RetryableError extends PrintRelayError {
  constructor(code: string, message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(code, message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
  readonly retryAfterMs: number | undefined;
}

/** A failure that trying again will not fix (document rejected, unsupported format). */
export class PermanentError extends PrintRelayError {}

export class NotFoundError extends PrintRelayError<'not_found'> {
  constructor(what: string) {
    super('not_found', `${what} not found`);
  }
}

/** The request clashes with the current state (a name taken, a job already released): HTTP 409. */
export class ConflictError extends PrintRelayError<ErrorCode> {
  constructor(
    message: string,
    readonly field?: string,
    code: ErrorCode = 'conflict',
  ) {
    super(code, message);
  }
}

/** The thing existed and is gone for good (an expired code, a deleted file): HTTP 410. */
export class GoneError extends PrintRelayError<ErrorCode> {
  constructor(message: string, code: ErrorCode = 'gone') {
    super(code, message);
  }
}

/** The caller is known but may not do this (role, ownership, the kind of token): HTTP 403. */
export class ForbiddenError extends PrintRelayError<ErrorCode> {
  constructor(message: string, code: ErrorCode = 'forbidden') {
    super(code, message);
  }
}

/** Too many attempts or creations in a window; `retryAfterMs` when waiting helps: HTTP 429. */
export class TooManyRequestsError extends PrintRelayError<ErrorCode> {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    code: ErrorCode = 'too_many_requests',
  ) {
    super(code, message);
  }
}

export function isRetryable(error: unknown): error is RetryableError {
  return error instanceof RetryableError;
}

export function isValidationError(error: unknown): error is ValidationError | ValidationErrors {
  return error instanceof ValidationError || error instanceof ValidationErrors;
}

/** The message of anything thrown, for logs and error bodies. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
