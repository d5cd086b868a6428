/**
 * The /TPFM/ answer shapes of the emulator: a command's failure (X-FMP-Return code plus an
 * English detail naming the parameter and rule), the header set of an error with the localized
 * base64 X-FMP-ErrText (and X-FMP-OSError / X-FMP-OSErrText for code 1), the 401 challenge, and
 * query normalization (parameter names matched case-insensitively). Pure apart from the Fastify
 * reply it writes; nothing to clean up.
 */
import type { FastifyReply } from 'fastify';
import { type ErrorCode, PrintRelayError } from '../../../lib/errors.js';
import { LOCAL_JOB_FIELDS } from '../../../protocol/tpfm-local-job.js';
import {
  encodeErrText,
  TPFM_COMMANDS,
  TPFM_HEADERS,
  type TpfmCommand,
  tpfmErrorText,
} from '../../../protocol/tpfm-codes.js';

/** A command result other than success: `returnCode` goes to X-FMP-Return. */
export class TpfmFailure extends PrintRelayError<ErrorCode> {
  constructor(
    readonly returnCode: number,
    /** English detail appended to the localized text (parameter and rule). */
    readonly detail?: string,
    readonly osError?: number,
    readonly osErrText?: string,
  ) {
    super('tpfm_failure', `X-FMP-Return ${returnCode}${detail ? `: ${detail}` : ''}`);
  }
}

/** Code 1 for an unexpected server-side error: the OS error number (errno) or 1359 (internal error). */
export function osFailure(error: unknown): TpfmFailure {
  const errno = (error as { errno?: unknown } | null)?.errno;
  const osError = typeof errno === 'number' ? Math.abs(errno) : 1359;
  const text = error instanceof Error ? error.message : String(error);
  return new TpfmFailure(1, undefined, osError, text);
}

/** The error headers of a failure in the requested language. */
export function failureHeaders(failure: TpfmFailure, langId: string | undefined): Record<string, string> {
  const text = tpfmErrorText(failure.returnCode, langId) + (failure.detail ? `: ${failure.detail}` : '');
  const headers: Record<string, string> = {
    [TPFM_HEADERS.return]: String(failure.returnCode),
    [TPFM_HEADERS.errText]: encodeErrText(text),
  };
  if (failure.returnCode === 1) {
    headers[TPFM_HEADERS.osError] = String(failure.osError ?? 1359);
    headers[TPFM_HEADERS.osErrText] = encodeErrText(failure.osErrText ?? text);
  }
  return headers;
}

/** Sends a failure as HTTP 200 with an empty text body. */
export function sendFailure(reply: FastifyReply, failure: TpfmFailure, langId: string | undefined) {
  return reply.code(200).headers(failureHeaders(failure, langId)).type('text/plain; charset=utf-8').send('');
}

/** Sends the 401 Basic challenge. */
export function sendChallenge(reply: FastifyReply) {
  return reply
    .code(401)
    .header('WWW-Authenticate', 'Basic realm="PrintRelay pull printing", charset="UTF-8"')
    .type('text/plain; charset=utf-8')
    .send('');
}

const PARAMS = [
  'Cmd',
  'Printer',
  'MaxEntries',
  'ShowPutOnHoldJobs',
  'Job',
  'Copies',
  'Delete',
  'Progress',
  'ProcId',
  'PutOnHold',
  'ModifiedDate',
  'Type',
  'JobId',
  // CreateLocalJob / UpdateLocalJob (Copies, also a PrintJob parameter, is named above).
  ...LOCAL_JOB_FIELDS.filter((field) => field !== 'Copies'),
  'DocumentName',
  'FileExtension',
  'PageNumber',
];
const CANONICAL = new Map(PARAMS.map((p) => [p.toLowerCase(), p]));

/** The query with known parameter names in their spec spelling (first value of repeated ones). */
export function canonicalQuery(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const name = CANONICAL.get(key.toLowerCase()) ?? key;
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && out[name] === undefined) out[name] = first;
  }
  return out;
}

/** The command named by Cmd (case-insensitive), or undefined. */
export function resolveCommand(cmd: string | undefined): TpfmCommand | undefined {
  if (!cmd) return undefined;
  const wanted = cmd.trim().toLowerCase();
  return (Object.keys(TPFM_COMMANDS) as TpfmCommand[]).find((c) => c.toLowerCase() === wanted);
}

/** A 0/1 flag parameter; `code` when malformed. */
export function flagParam(value: string | undefined, name: string, code: number, fallback: boolean): boolean {
  if (value === undefined || value.trim() === '') return fallback;
  if (value.trim() === '0') return false;
  if (value.trim() === '1') return true;
  throw new TpfmFailure(code, `${name} must be 0 or 1`);
}

/** An integer parameter within bounds; `code` when malformed. */
export function intParam(
  value: string | undefined,
  name: string,
  bounds: { min: number; max: number; code: number },
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < bounds.min || n > bounds.max) {
    throw new TpfmFailure(bounds.code, `${name} must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return n;
}
