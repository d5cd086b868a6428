/**
 * Writes a byte range of an open file as the body of a Node response, from two buffers of a
 * BufferPool: while one is being written the next read fills the other, and a buffer is read
 * into again only after its write's callback ran (the socket is done with it). So a 1 GiB
 * document goes out through the same 2 MiB, with no new buffer per read for the collector.
 * Applies a fault rule's shaping itself (response-shaping.ts): `cut` sends the first half of the
 * body and closes the connection, `slow` sends pieces of SLOW_CHUNK_BYTES after a pause each.
 * A client that goes away stops the reading at once; the buffers go back to the pool when the
 * response has closed. Never throws: the outcome says how it ended. The caller owns the file
 * handle and closes it.
 */
import type { ServerResponse } from 'node:http';
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BufferPool } from './buffer-pool.js';
import type { ByteRange } from './file-range.js';
import { cutPoint, type ResponseShaping, SLOW_CHUNK_BYTES } from './response-shaping.js';

/** How a body ended, and how many of its bytes were handed to the socket. */
export type BodyOutcome =
  | { kind: 'complete'; bytes: number }
  | { kind: 'aborted'; bytes: number }
  | { kind: 'cut'; bytes: number }
  | { kind: 'failed'; bytes: number; error: unknown };

/**
 * Writes bytes `range.start..range.end` of `file` to `res` and ends it (or, on a cut or a
 * failure, destroys it). Resolves once both buffers are back in `pool`.
 */
export async function writeFileBody(
  res: ServerResponse,
  file: FileHandle,
  range: ByteRange,
  pool: BufferPool,
  shaping: ResponseShaping | null = null,
): Promise<BodyOutcome> {
  const closed = closeSignal(res);
  const length = range.end - range.start + 1;
  const cut = shaping?.kind === 'cut';
  const limit = cut ? Math.min(length, cutPoint(length)) : length;
  const buffers = [pool.take(), pool.take()];
  /** Bytes read and handed to a write; of those, bytes whose write completed. */
  let queued = 0;
  let sent = 0;
  let writing: { done: Promise<boolean>; bytes: number } | undefined;
  const settle = async (): Promise<boolean> => {
    if (!writing) return true;
    const ok = await writing.done;
    if (ok) sent += writing.bytes;
    writing = undefined;
    return ok;
  };
  try {
    for (let turn = 0; queued < limit && !closed.aborted; turn ^= 1) {
      const buffer = buffers[turn] as Buffer;
      const want = Math.min(buffer.length, limit - queued);
      const { bytesRead } = await file.read(buffer, 0, want, range.start + queued);
      if (bytesRead === 0) throw new Error(`the file ends ${length - queued} bytes before the range does`);
      if (!(await settle()) || closed.aborted) break;
      writing = { done: writeChunk(res, buffer.subarray(0, bytesRead), shaping, closed), bytes: bytesRead };
      queued += bytesRead;
    }
    if (!(await settle()) || closed.aborted) return { kind: 'aborted', bytes: sent };
    if (cut) {
      res.destroy();
      return { kind: 'cut', bytes: sent };
    }
    res.end();
    return { kind: 'complete', bytes: sent };
  } catch (error) {
    res.destroy();
    return { kind: 'failed', bytes: sent, error };
  } finally {
    // A write still in flight holds its buffer until it completes or the response closes.
    if (writing) await writing.done;
    for (const buffer of buffers) pool.give(buffer);
  }
}

/** Aborted when the response closes: finished, destroyed, or its client gone. */
function closeSignal(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  if (res.destroyed) closed.abort();
  else res.once('close', () => closed.abort());
  return closed.signal;
}

/** Writes one chunk as it is, or slowly; false when the response closed first. */
async function writeChunk(
  res: ServerResponse,
  chunk: Buffer,
  shaping: ResponseShaping | null,
  closed: AbortSignal,
): Promise<boolean> {
  if (shaping?.kind !== 'slow') return write(res, chunk, closed);
  for (let at = 0; at < chunk.length; at += SLOW_CHUNK_BYTES) {
    try {
      await sleep(shaping.pauseMs, undefined, { signal: closed });
    } catch {
      return false;
    }
    if (!(await write(res, chunk.subarray(at, at + SLOW_CHUNK_BYTES), closed))) return false;
  }
  return true;
}

/**
 * Resolves true once the socket is done with `chunk` (the write's callback), false when the
 * response closed first: a closed socket writes nothing more, so the chunk's memory is free
 * either way.
 */
function write(res: ServerResponse, chunk: Buffer, closed: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (closed.aborted) return resolve(false);
    const onClose = () => resolve(false);
    closed.addEventListener('abort', onClose, { once: true });
    res.write(chunk, (error) => {
      closed.removeEventListener('abort', onClose);
      resolve(error == null);
    });
  });
}
