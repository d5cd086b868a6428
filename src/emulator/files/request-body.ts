/**
 * Reading a raw request body without ever destroying it: destroying an unfinished request
 * destroys its socket, and the keep-alive connection with it. `readText` stops collecting past
 * its limit and rejects, leaving the rest unread; `drainBody` reads and drops the rest up to a
 * limit, so the connection can carry the next request. No resources held.
 */
import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../../lib/errors.js';

/** The body as UTF-8 text; ValidationError naming `field` once it passes `limit` bytes. */
export function readText(body: IncomingMessage, limit: number, field: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.pause();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      reject(new ValidationError(field, `must be at most ${limit} bytes`));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    body.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/**
 * Reads and drops what is left of `body`. True when the body ended within `limit` more bytes
 * (the connection can go on); false when more is coming (answer with `Connection: close`; the
 * rest is still read and dropped while the answer goes out, so it is not reset).
 */
export function drainBody(body: IncomingMessage, limit: number): Promise<boolean> {
  if (body.complete || body.readableEnded || body.destroyed) return Promise.resolve(!body.destroyed);
  const declared = Number(body.headers['content-length']);
  return new Promise((resolve) => {
    let size = 0;
    const done = (ended: boolean) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      if (!ended) body.resume();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(false);
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    body.on('data', onData).on('end', onEnd).on('error', onError);
    body.resume();
    if (Number.isFinite(declared) && declared > limit) done(false);
  });
}

/** How long a connection closed after an answer keeps dropping what its client still sends. */
const LINGER_MS = 5_000;

/**
 * For an answer sent with `Connection: close` while the client is still sending: close the
 * sending side only, and keep reading and dropping the rest until the client closes or
 * LINGER_MS pass. Closing a socket with unread data makes the kernel reset the connection,
 * and the client would lose the answer with it.
 */
export function lingerOnClose(body: IncomingMessage): void {
  const socket = body.socket;
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
