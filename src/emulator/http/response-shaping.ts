/**
 * How an answer's body is to be sent when a sandbox fault rule touched the request: cut (the
 * headers and the first half of the body, then the connection is closed) or slowly (pieces of
 * SLOW_CHUNK_BYTES, each after a pause). The fault hooks set it on the request before the
 * operation runs; whoever writes the body applies it: the fault hooks' own onSend hooks for
 * ordinary answers, the file sender for documents it writes itself (file-sender.ts).
 */
import type { FastifyInstance } from 'fastify';

/** Size of the pieces a slow answer is sent in. */
export const SLOW_CHUNK_BYTES = 16 * 1024;
/** Bytes of a streamed answer of unknown length sent before a cut. */
export const CUT_UNKNOWN_LENGTH_AT = 64 * 1024;

/** One way of misbehaving while sending a body. */
export type ResponseShaping = { kind: 'cut' } | { kind: 'slow'; pauseMs: number };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by a fault rule (sandbox/faults/http-fault-hooks.ts); null when the body goes as it is. */
    responseShaping: ResponseShaping | null;
  }
}

/** Declares `request.responseShaping` (null); call once, before the hooks that set it. */
export function declareResponseShaping(app: FastifyInstance): void {
  app.decorateRequest('responseShaping', null);
}

/** Bytes of a body of `length` bytes sent before a cut: half, rounded up. */
export function cutPoint(length: number): number {
  return Number.isFinite(length) && length > 0 ? Math.ceil(length / 2) : CUT_UNKNOWN_LENGTH_AT;
}
