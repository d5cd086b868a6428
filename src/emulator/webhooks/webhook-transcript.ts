/**
 * The transcript of one webhook POST (request and response as the spec's test result shows
 * them, credentials never echoed) and the text that says why a POST got no answer. Pure.
 */
import { STATUS_CODES } from 'node:http';
import type { DeliveryError } from './webhook-delivery-repo.js';
import { PostDeadlineError } from './webhook-post.js';

/** One side of a transcript: all strings, as the spec's test result gives them. */
export interface TranscriptPart {
  start_line: string;
  headers: string;
  body: string;
}

/** What happened to one POST. */
export interface DeliveryTranscript {
  request: TranscriptPart;
  response: TranscriptPart;
  status: 'succeeded' | 'failed';
  error?: DeliveryError;
  response_status_code?: number;
  /** Why no answer came (connection refused or closed, certificate rejected, deadline). */
  detail?: string;
}

/** The transcript part of a POST sent without a transcript. */
export const EMPTY_PART: TranscriptPart = { start_line: '', headers: '', body: '' };

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** The request as sent, credentials redacted. */
export function requestPart(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
): TranscriptPart {
  const lines = [
    `Host: ${url.host}`,
    ...Object.entries(headers).map(([k, v]) => `${headerName(k)}: ${shown(k, v)}`),
  ];
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return { start_line: `POST ${url.pathname}${url.search} HTTP/1.1`, headers: lines.join('\r\n'), body };
}

/** The response's status line, headers and (possibly cut) body. */
export function responsePart(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
) {
  const lines = Object.entries(headers).flatMap(([k, v]) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((one) => `${headerName(k)}: ${one}`),
  );
  return {
    start_line: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd(),
    headers: lines.join('\r\n'),
    body,
  };
}

/** Credentials are never echoed back, even in a transcript. */
function shown(name: string, value: string): string {
  return name === 'authorization' ? 'Basic [redacted]' : value;
}

function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/** TLS verification failures of a receiver whose certificate chains to a CA Node does not know. */
const UNTRUSTED_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

/** What to do about an untrusted receiver certificate, for people reading a test result. */
export const UNTRUSTED_CERT_HINT =
  "the receiver's certificate is not issued by a CA the emulator trusts: start the emulator or the demo with " +
  '--webhook-ca <PEM file of that CA> (docs/emulator.md, "A receiver with a private CA")';

/** Why a POST got no answer, with a hint for an untrusted receiver certificate. */
export function describeFailure(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (error instanceof PostDeadlineError || TIMEOUT_CODES.has(e.code ?? ''))
    return 'no answer within the deadline';
  const cause = e.cause?.message ?? e.cause?.code;
  const text = [e.message ?? String(error), cause].filter(Boolean).join(': ');
  const untrusted = UNTRUSTED_CERT_CODES.has(e.code ?? '') || UNTRUSTED_CERT_CODES.has(e.cause?.code ?? '');
  return untrusted ? `${text}; ${UNTRUSTED_CERT_HINT}` : text;
}
