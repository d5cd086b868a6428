/**
 * How IPP outcomes become PrintRelay's typed errors (one place): busy-like status codes and
 * network failures are RetryableError (`printer_busy`, `printer_unreachable`), client-error-*
 * and other refusals are PermanentError (`printer_rejected`), an unreadable response is
 * IppResponseError. Pure; nothing to clean up.
 */
import { PermanentError, RetryableError } from '../../lib/errors.js';
import { STATUS, statusName } from './ipp-constants.js';

/** The printer answered with an IPP status that says no; `status` is the IPP keyword. */
export class IppRejectedError extends PermanentError {
  constructor(
    readonly statusCode: number,
    readonly operation: string,
    detail?: string,
  ) {
    super('printer_rejected', describe(operation, statusCode, detail));
  }
  /** The IPP status keyword (client-error-document-format-not-supported, ...). */
  get status(): string {
    return statusName(this.statusCode);
  }
}

/**
 * The printer answered with a status meaning "not now" (busy, not accepting, temporary error).
 * It carries no retry delay: IPP gives none, and the caller's busy schedule decides (a printer
 * that is busy with the previous job is usually free again within milliseconds).
 */
export class IppBusyError extends RetryableError {
  constructor(
    readonly statusCode: number,
    readonly operation: string,
    detail?: string,
  ) {
    super('printer_busy', describe(operation, statusCode, detail));
  }
}

/** The response was truncated, not IPP, or not HTTP 200; trying again may work. */
export class IppResponseError extends RetryableError {
  constructor(operation: string, problem: string, options?: { cause?: unknown }) {
    super('printer_bad_response', `${operation}: bad response from printer: ${problem}`, options);
  }
}

function describe(operation: string, code: number, detail?: string): string {
  return `${operation}: printer answered ${statusName(code)}${detail ? ` (${detail})` : ''}`;
}

const busyStatuses = new Set<number>([STATUS.BUSY, STATUS.SERVICE_UNAVAILABLE, 0x0505, 0x0506]);
const permanentServerStatuses = new Set<number>([
  STATUS.OPERATION_NOT_SUPPORTED,
  STATUS.VERSION_NOT_SUPPORTED,
]);

/** The error for an IPP status code, or undefined for successful-*. */
export function errorForStatus(code: number, operation: string, detail?: string): Error | undefined {
  if (code < 0x0100) return undefined;
  if (busyStatuses.has(code)) return new IppBusyError(code, operation, detail);
  if (code >= 0x0500 && code < 0x0600 && !permanentServerStatuses.has(code)) {
    return new RetryableError('printer_error', describe(operation, code, detail));
  }
  return new IppRejectedError(code, operation, detail);
}

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

const tlsTrustCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** Maps a socket/TLS error of a request to a typed error. */
export function errorForNetworkFailure(error: unknown, operation: string, target: string): Error {
  const code = (error as { code?: string } | undefined)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (tlsTrustCodes.has(code)) {
    return new PermanentError(
      'printer_tls_untrusted',
      `${operation}: the certificate of ${target} is not trusted (${code}); see docs/ipp.md for tls-verify / tls-fingerprint`,
      { cause: error },
    );
  }
  if (code.startsWith('HPE_')) {
    // Something answered, but not in HTTP: a device that is not (or no longer) the printer.
    return new IppResponseError(operation, `not an HTTP answer (${code})`, { cause: error });
  }
  if (unreachableCodes.has(code) || code === '') {
    return new RetryableError('printer_unreachable', `${operation}: ${target} unreachable: ${message}`, {
      cause: error,
    });
  }
  return new RetryableError('printer_unreachable', `${operation}: ${target} failed (${code}): ${message}`, {
    cause: error,
  });
}
