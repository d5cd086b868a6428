/**
 * One TCP (ipp://) or TLS (ipps://) connection to a printer that carries IPP requests one after
 * another: the caller writes each request on `socket` itself and gets the answer from `answer()`,
 * read by an HttpAnswerReader from the bytes as they arrive. TLS policy (tls-verify,
 * tls-fingerprint) is checked before `ready` resolves, so no byte of a request goes to a printer
 * whose certificate is refused. The owner (the pool, or a one-shot exchange) calls destroy().
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { PermanentError } from '../../lib/errors.js';
import { type HttpAnswer, HttpAnswerReader } from './ipp-response-reader.js';
import type { IppTarget } from './ipp-target.js';

/** The error of a connection that ended before a byte of the answer came: a network failure. */
function closedBeforeAnswer(): Error {
  return Object.assign(new Error('connection closed before the answer'), { code: 'ECONNRESET' });
}

/** A connection's current answer: its reader and how to settle the caller's promise. */
interface PendingAnswer {
  reader: HttpAnswerReader;
  resolve: (answer: HttpAnswer) => void;
  reject: (error: unknown) => void;
}

export class IppConnection {
  /** Settles once the connection is usable (TCP connected; for ipps, the certificate accepted). */
  readonly ready: Promise<void>;
  /** Answers read completely on this connection (more than 0: a kept-open connection reused). */
  served = 0;
  /** True once `ready` resolved. */
  connected = false;
  /** True once the socket closed or ended: it carries no more requests. */
  closed = false;
  private pending: PendingAnswer | undefined;

  private constructor(
    readonly socket: Socket,
    secure: boolean,
    fingerprint: string | undefined,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      const onError = (error: unknown) => reject(error);
      socket.once('error', onError);
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        socket.off('error', onError);
        const refused = fingerprint ? fingerprintRefused(socket as TLSSocket, fingerprint) : undefined;
        if (refused) {
          socket.destroy(refused);
          reject(refused);
        } else {
          this.connected = true;
          resolve();
        }
      });
    });
    this.ready.catch(() => undefined);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', (error) => this.failPending(error));
    socket.on('close', () => {
      this.closed = true;
      this.failPending(closedBeforeAnswer());
    });
  }

  /** Opens a connection to the target (nothing is sent yet). */
  static connect(target: IppTarget): IppConnection {
    const host = target.host;
    if (!target.secure)
      return new IppConnection(netConnect({ host, port: target.port, noDelay: true }), false, undefined);
    const socket = tlsConnect({
      host,
      port: target.port,
      servername: serverName(host),
      rejectUnauthorized: target.tlsVerify,
    });
    socket.setNoDelay(true);
    return new IppConnection(socket, true, target.tlsFingerprint);
  }

  /**
   * The answer to the request about to be written: resolves once it is complete, rejects when the
   * connection fails or closes first (then `started` on the reader says whether any byte came) or
   * when the answer is not HTTP or larger than `maxBodyBytes` (HttpAnswerError).
   */
  answer(maxBodyBytes: number): { reader: HttpAnswerReader; done: Promise<HttpAnswer> } {
    const reader = new HttpAnswerReader(maxBodyBytes);
    const done = new Promise<HttpAnswer>((resolve, reject) => {
      if (this.closed) reject(closedBeforeAnswer());
      else this.pending = { reader, resolve, reject };
    });
    return { reader, done };
  }

  /** Ends the connection at once; a pending answer rejects with `error` (or "closed"). */
  destroy(error?: unknown): void {
    this.closed = true;
    if (error !== undefined) this.failPending(error);
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const pending = this.pending;
    if (!pending) {
      // Nothing was asked: a printer talking out of turn cannot be trusted with the next request.
      this.destroy();
      return;
    }
    let answer: HttpAnswer | undefined;
    try {
      answer = pending.reader.push(chunk);
    } catch (error) {
      this.destroy(error);
      return;
    }
    if (!answer) return;
    this.pending = undefined;
    this.served++;
    pending.resolve(answer);
  }

  private onEnd(): void {
    this.closed = true;
    const pending = this.pending;
    if (pending?.reader.started) {
      this.pending = undefined;
      try {
        const answer = pending.reader.end();
        this.served++;
        pending.resolve(answer);
      } catch (error) {
        pending.reject(error);
      }
    } else this.failPending(closedBeforeAnswer());
    this.socket.destroy();
  }

  private failPending(error: unknown): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    pending.reject(error);
  }
}

function serverName(host: string): string | undefined {
  return /^[\d.]+$/.test(host) || host.includes(':') ? undefined : host;
}

/** The refusal for a certificate whose SHA-256 fingerprint is not the pinned one, else undefined. */
function fingerprintRefused(socket: TLSSocket, expected: string): PermanentError | undefined {
  const actual = socket.getPeerCertificate().fingerprint256?.toUpperCase();
  if (actual === expected) return undefined;
  return new PermanentError(
    'printer_tls_untrusted',
    `certificate fingerprint ${actual ?? 'none'} does not match tls-fingerprint`,
  );
}
