/**
 * One IPP request over HTTP(S): the encoded attribute groups, then the document streamed from
 * its file (ipp-document-sender.ts; never read whole), and the response decoded safely. TLS
 * policy for ipps:// comes from the URI (see parseIppTarget and docs/ipp.md). One timer per
 * request and the caller's AbortSignal end it early. With an `agent` (IppClient passes its
 * keep-alive agent) connections are reused between requests to the same printer, and a request
 * that may repeat is sent again when a reused connection turns out closed; without one each call
 * owns its socket and closes it.
 */
import { type Agent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { PermanentError, ValidationError } from '../../lib/errors.js';
import { decodeMessage, type IppMessage, IppIncompleteError } from './ipp-codec.js';
import {
  type DocumentSource,
  documentFromBytes,
  openDocument,
  streamDocument,
} from './ipp-document-sender.js';
import { errorForNetworkFailure, IppResponseError } from './ipp-errors.js';

/** Where and how to reach a printer, parsed from an ipp:// or ipps:// URI. */
export interface IppTarget {
  /** The printer-uri sent in requests (query parameters removed). */
  printerUri: string;
  secure: boolean;
  host: string;
  port: number;
  path: string;
  /** ipps only: verify the certificate chain and host name (default false: printers are self-signed). */
  tlsVerify: boolean;
  /** ipps only: the SHA-256 fingerprint the certificate must have (AA:BB:..., case-insensitive). */
  tlsFingerprint?: string;
}

/**
 * Parses ipp://host[:port]/path[?tls-verify=true|false][&tls-fingerprint=AA:BB:...]. The default
 * port is 631. Throws ValidationError naming `uri` for anything else.
 */
export function parseIppTarget(uri: string): IppTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ValidationError('uri', 'must be an absolute ipp:// or ipps:// URI', 'uri: not an absolute URI');
  }
  if (url.protocol !== 'ipp:' && url.protocol !== 'ipps:') {
    throw new ValidationError(
      'uri',
      'scheme must be ipp or ipps',
      `uri: scheme ${url.protocol} is not ipp/ipps`,
    );
  }
  const verify = url.searchParams.get('tls-verify');
  if (verify !== null && verify !== 'true' && verify !== 'false') {
    throw new ValidationError('uri', 'tls-verify must be true or false');
  }
  const fingerprint = url.searchParams.get('tls-fingerprint') ?? undefined;
  if (fingerprint !== undefined && !/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/i.test(fingerprint)) {
    throw new ValidationError('uri', 'tls-fingerprint must be a SHA-256 fingerprint AA:BB:... (32 bytes)');
  }
  const path = url.pathname || '/';
  const printerUri = `${url.protocol}//${url.host}${path}`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    printerUri,
    secure: url.protocol === 'ipps:',
    host,
    port: url.port ? Number(url.port) : 631,
    path,
    tlsVerify: verify === 'true',
    tlsFingerprint: fingerprint?.toUpperCase(),
  };
}

/** The largest response accepted (responses are attribute lists; a printer's is a few tens of kB). */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

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
  /** Keep-alive agent for this target (an https.Agent for ipps://); omitted: one connection per call. */
  agent?: Agent;
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
    // Each stale socket is destroyed when it fails, so the pool's free sockets run out quickly.
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

function exchangeOnce(
  target: IppTarget,
  header: Buffer,
  options: ExchangeOptions,
  document: DocumentSource | undefined,
): Promise<IppMessage> {
  const where = `${target.host}:${target.port}`;
  return new Promise<IppMessage>((resolve, reject) => {
    let settled = false;
    let responded = false;
    /** Why the exchange was ended from this side: the timer or the caller's signal. */
    let ended: 'timeout' | 'aborted' | undefined;
    const length = header.length + (document?.size ?? 0);
    const req = openRequest(target, length, options.agent);
    const timer = setTimeout(() => {
      ended = 'timeout';
      req.destroy(timedOut());
    }, options.timeoutMs);
    const onAbort = () => {
      ended = 'aborted';
      req.destroy(options.signal?.reason);
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
    /** socket.bytesRead when the request got its socket (a reused one has read earlier answers). */
    let readBefore: number | undefined;
    req.on('socket', (socket) => {
      readBefore = socket.bytesRead;
    });
    const failRequest = (error: unknown) => {
      const mapped = mapRequestError(error, ended, options, where);
      const nothingRead = readBefore !== undefined && (req.socket?.bytesRead ?? readBefore) === readBefore;
      fail(
        ended === undefined && req.reusedSocket && nothingRead ? new StaleConnectionError(mapped) : mapped,
      );
    };
    req.on('error', (error) => {
      if (!responded) failRequest(error);
    });
    /** Settles once the document was written out or the request is gone (undefined: no document). */
    let documentDone: Promise<void> | undefined;
    req.on('response', (res) => {
      responded = true;
      readResponse(res, options.operation).then(
        async (message) => {
          // The answer to a document is reported once the request finished on this side too.
          if (documentDone) await documentDone;
          if (settled) return;
          settle();
          resolve(message);
        },
        (error) => fail(ended ? mapRequestError(error, ended, options, where) : error),
      );
    });
    if (target.secure && target.tlsFingerprint) pinFingerprint(req, target.tlsFingerprint, fail);
    if (!document) {
      req.end(header);
      return;
    }
    document.streaming = true;
    // Closed once the sender is done or the request is gone (a destroyed request may leave the
    // sender waiting for a callback that never comes).
    let fileClosed = false;
    const closeFile = () => {
      if (fileClosed) return;
      fileClosed = true;
      document.file?.close().catch(() => undefined);
    };
    req.once('close', closeFile);
    const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
    const streamed = streamDocument(document, req, header, options.onDocumentFlushed);
    documentDone = Promise.race([streamed.catch(() => undefined), closed]);
    streamed
      .catch((error) => {
        // The printer may answer (busy, format not supported) and close before taking the whole
        // document; then the response wins and this write error is noise.
        setImmediate(() => {
          if (!responded) failRequest(error);
        });
      })
      .finally(closeFile);
  });
}

function timedOut(): Error {
  return Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
}

function openRequest(target: IppTarget, length: number, agent?: Agent): ClientRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/ipp',
    'content-length': String(length),
  };
  if (!agent) headers.connection = 'close';
  const common = {
    host: target.host,
    port: target.port,
    path: target.path,
    method: 'POST',
    headers,
    agent: agent ?? (false as const),
  };
  if (!target.secure) return httpRequest(common);
  return httpsRequest({
    ...common,
    rejectUnauthorized: target.tlsVerify,
    servername: serverName(target.host),
  });
}

function serverName(host: string): string | undefined {
  return /^[\d.]+$/.test(host) || host.includes(':') ? undefined : host;
}

function pinFingerprint(req: ClientRequest, expected: string, fail: (e: unknown) => void): void {
  req.on('socket', (socket) => {
    socket.once('secureConnect', () => {
      const actual = (socket as TLSSocket).getPeerCertificate().fingerprint256?.toUpperCase();
      if (actual !== expected) {
        const error = new PermanentError(
          'printer_tls_untrusted',
          `certificate fingerprint ${actual ?? 'none'} does not match tls-fingerprint`,
        );
        fail(error);
        req.destroy(error);
      }
    });
  });
}

function mapRequestError(
  error: unknown,
  ended: 'timeout' | 'aborted' | undefined,
  options: ExchangeOptions,
  where: string,
): unknown {
  if (ended === 'timeout') return errorForNetworkFailure(timedOut(), options.operation, where);
  if (ended === 'aborted') return options.signal?.reason ?? error;
  if (error instanceof PermanentError) return error;
  return errorForNetworkFailure(error, options.operation, where);
}

async function readResponse(res: IncomingMessage, operation: string): Promise<IppMessage> {
  if (res.statusCode !== 200) {
    res.resume();
    throw new IppResponseError(operation, `HTTP status ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res) {
      total += (chunk as Buffer).length;
      if (total > MAX_RESPONSE_BYTES) throw new IppResponseError(operation, 'response larger than 8 MiB');
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof IppResponseError) throw error;
    throw new IppResponseError(operation, 'connection closed mid-response', { cause: error });
  }
  try {
    return decodeMessage(Buffer.concat(chunks));
  } catch (error) {
    const problem = error instanceof IppIncompleteError ? 'truncated IPP message' : (error as Error).message;
    throw new IppResponseError(operation, problem, { cause: error });
  }
}
