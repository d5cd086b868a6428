/**
 * One IPP request over HTTP(S), written on the printer's socket by this module itself (no
 * node:http: docs/ipp.md says why): the HTTP head, the encoded attribute groups and the document
 * (ipp-document-sender.ts; a file is never read whole), then the answer read with as little work
 * as it needs (ipp-response-reader.ts) and decoded safely. TLS policy for ipps:// comes from the
 * URI (ipp-target.ts). One timer per request and the caller's AbortSignal end it early. With a
 * `pool` (IppClient's) connections are kept open between requests to the same printer, and a
 * request that may repeat is sent again when a reused connection turns out closed; without one
 * each call owns its connection and closes it.
 */
import { PermanentError } from '../../lib/errors.js';
import { decodeMessage, type IppMessage, IppIncompleteError } from './ipp-codec.js';
import { IppConnection } from './ipp-connection.js';
import type { IppConnectionPool } from './ipp-connection-pool.js';
import { type DocumentSource, documentFromBytes, openDocument, writeRequest } from './ipp-document-sender.js';
import { errorForNetworkFailure, IppResponseError } from './ipp-errors.js';
import { requestHead } from './ipp-request-head.js';
import { type HttpAnswer, HttpAnswerError } from './ipp-response-reader.js';
import type { IppTarget } from './ipp-target.js';

export { type IppTarget, parseIppTarget } from './ipp-target.js';

/** The largest response accepted (responses are attribute lists; a printer's is a few tens of kB). */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Options of one exchange. */
export interface ExchangeOptions {
  operation: string;
  /** Path of a document to stream after the attributes. */
  documentPath?: string;
  /** The document's bytes, when the caller holds them (the same as the file at documentPath): sent instead of reading the file. */
  documentBytes?: Buffer;
  /** The caller's signal: aborting it ends the exchange with the signal's reason. */
  signal?: AbortSignal;
  /** Time the whole exchange may take; past it the request ends as timed out (printer_unreachable). */
  timeoutMs: number;
  /** The printer's kept-open connections (IppClient's); omitted: one connection for this call, closed after it. */
  pool?: IppConnectionPool;
  /**
   * True for an operation that may be sent twice (Get-*, Validate-Job, Cancel-Job): one that
   * failed on a reused keep-alive connection before any byte of the answer arrived (the printer
   * had closed the idle connection) is sent again. Job-creating and document-carrying operations
   * are never repeated here; their callers reconcile at the printer instead.
   */
  repeatable?: boolean;
  /**
   * Called once every byte of the document is with the operating system (before the answer, if
   * it comes). An exchange carrying a document resolves only after the request finished, so
   * by then this was called unless the connection broke first.
   */
  onDocumentFlushed?: () => void;
}

/** Sends `header` (and the document) to the target; resolves with the decoded response. */
export async function exchange(
  target: IppTarget,
  header: Buffer,
  options: ExchangeOptions,
): Promise<IppMessage> {
  if (options.signal?.aborted) throw options.signal.reason;
  const document = options.documentBytes
    ? documentFromBytes(options.documentBytes)
    : options.documentPath
      ? await openDocument(options.documentPath)
      : undefined;
  try {
    // Each stale connection is discarded when it fails, so the pool's idle ones run out quickly.
    for (let attempt = 1; ; attempt++) {
      try {
        return await exchangeOnce(target, header, options, document);
      } catch (error) {
        if (!(error instanceof StaleConnectionError)) throw error;
        if (!options.repeatable || attempt >= MAX_STALE_RETRIES) throw error.mapped;
      }
    }
  } finally {
    if (document?.file && !document.streaming) await document.file.close().catch(() => undefined);
  }
}

/** Tries of a repeatable request that keep failing on reused connections. */
const MAX_STALE_RETRIES = 3;

/**
 * A request that failed on a reused keep-alive connection before any byte of the answer came
 * back: the printer most likely closed the idle connection as the request went out. `mapped` is
 * the error the caller gets when the request is not sent again.
 */
class StaleConnectionError extends Error {
  constructor(readonly mapped: unknown) {
    super('reused connection closed before the answer');
  }
}

/** Why an exchange was ended from this side: its timer or the caller's signal. */
type Ended = 'timeout' | 'aborted' | undefined;

function exchangeOnce(
  target: IppTarget,
  header: Buffer,
  options: ExchangeOptions,
  document: DocumentSource | undefined,
): Promise<IppMessage> {
  const where = `${target.host}:${target.port}`;
  const pool = options.pool;
  return new Promise<IppMessage>((resolve, reject) => {
    let settled = false;
    let ended: Ended;
    let connection: IppConnection | undefined;
    let cancelWait: (() => void) | undefined;
    const cut = (reason: unknown) => {
      if (connection) connection.destroy(reason);
      else {
        cancelWait?.();
        fail(mapError(reason, ended, options, where));
      }
    };
    const timer = setTimeout(() => {
      ended = 'timeout';
      cut(timedOut());
    }, options.timeoutMs);
    const onAbort = () => {
      ended = 'aborted';
      cut(options.signal?.reason);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settle();
      reject(error);
    };
    const begin = (given: IppConnection, reused: boolean) => {
      connection = given;
      run(target, header, options, document, given, !pool).then(
        ({ message, reusable, keepAliveMs }) => {
          if (pool) pool.release(given, reusable, keepAliveMs);
          else given.destroy();
          if (settled) return;
          settle();
          if (message instanceof Error) reject(message);
          else resolve(message);
        },
        ({ error, answerStarted }: RunFailure) => {
          if (pool) pool.discard(given);
          else given.destroy();
          const mapped = mapError(error, ended, options, where);
          const stale =
            ended === undefined && reused && !answerStarted && !(error instanceof HttpAnswerError);
          fail(stale ? new StaleConnectionError(mapped) : mapped);
        },
      );
    };
    if (pool) cancelWait = pool.acquire(begin);
    else begin(IppConnection.connect(target), false);
  });
}

/** A failed run: the error and whether any byte of the answer had come. */
interface RunFailure {
  error: unknown;
  answerStarted: boolean;
}

/**
 * Writes the request on the connection and reads its answer. Resolves with the decoded message
 * (or the IppResponseError of an answer read whole that is not IPP: the connection is still fine)
 * and whether the connection may carry another request; rejects with a RunFailure.
 */
async function run(
  target: IppTarget,
  header: Buffer,
  options: ExchangeOptions,
  document: DocumentSource | undefined,
  connection: IppConnection,
  close: boolean,
): Promise<{ message: IppMessage | IppResponseError; reusable: boolean; keepAliveMs?: number }> {
  const { reader, done } = connection.answer(MAX_RESPONSE_BYTES);
  done.catch(() => undefined);
  let written = false;
  let answer: HttpAnswer;
  try {
    if (!connection.connected) await Promise.race([connection.ready, done]);
    const head = requestHead(target, header.length + (document?.size ?? 0), close);
    if (!document) {
      // One write; if the kernel does not take it, the socket's error fails the answer.
      connection.socket.write(Buffer.concat([head, header], head.length + header.length));
      written = true;
      answer = await done;
    } else answer = await sendDocument(connection, head, header, document, options.onDocumentFlushed, done);
    written ||= document?.written === true;
  } catch (error) {
    throw { error, answerStarted: reader.started } satisfies RunFailure;
  }
  const reusable = answer.keepAlive && written && !close;
  return { message: decodeAnswer(answer, options.operation), reusable, keepAliveMs: answer.keepAliveMs };
}

/**
 * Writes a request carrying a document and resolves with its answer once the request finished on
 * this side too (a printer may answer early, busy or refusing the format, and close before taking
 * the whole document). A document that cannot be read ends the connection (its answer would never
 * come). The file is closed once the sender is done with it.
 */
async function sendDocument(
  connection: IppConnection,
  head: Buffer,
  header: Buffer,
  document: DocumentSource,
  onFlushed: (() => void) | undefined,
  done: Promise<HttpAnswer>,
): Promise<HttpAnswer> {
  document.streaming = true;
  const request = writeRequest(connection.socket, head, header, document, onFlushed);
  request.catch((error) => connection.destroy(error));
  const sent = request.then(
    () => {
      document.written = true;
    },
    () => undefined,
  );
  if (document.file) sent.finally(() => document.file?.close().catch(() => undefined));
  const answer = await done;
  if (!document.written) await sent;
  return answer;
}

function decodeAnswer(answer: HttpAnswer, operation: string): IppMessage | IppResponseError {
  if (answer.status !== 200) return new IppResponseError(operation, `HTTP status ${answer.status}`);
  try {
    return decodeMessage(answer.body);
  } catch (error) {
    const problem = error instanceof IppIncompleteError ? 'truncated IPP message' : (error as Error).message;
    return new IppResponseError(operation, problem, { cause: error });
  }
}

function timedOut(): Error {
  return Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
}

function mapError(error: unknown, ended: Ended, options: ExchangeOptions, where: string): unknown {
  if (ended === 'timeout') return errorForNetworkFailure(timedOut(), options.operation, where);
  if (ended === 'aborted') return options.signal?.reason ?? error;
  if (error instanceof HttpAnswerError) return new IppResponseError(options.operation, error.message);
  if (error instanceof PermanentError) return error;
  return errorForNetworkFailure(error, options.operation, where);
}
