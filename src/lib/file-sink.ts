/**
 * The sink of a large document (a download to the agent's spool, an upload to the emulator's
 * store): one Writable that shows every chunk to `onChunk` (counting, refusing) and writes it in
 * the same pass, hashing it while its write runs, buffering up to FILE_CHUNK and flushing what queued up with one writev, so a
 * large document costs few system calls and no second read for its hash.
 */
import type { Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { type Readable, Writable, finished } from 'node:stream';
import { PRIVATE_FILE_MODE } from './private-paths.js';

/** Bytes buffered by a sink, and read at once by the readers of large documents: 1 MiB. */
export const FILE_CHUNK = 1024 * 1024;

/** What a file sink does besides writing. */
export interface FileSinkOptions {
  /** Append to the file (a resumed download) instead of replacing it. */
  append?: boolean;
  /** Sees every chunk before it is written, in order; a throw fails the stream with that error. */
  onChunk?: (chunk: Buffer) => void;
  /**
   * Updated with every chunk in file order, while the write of that chunk runs in node's thread
   * pool: the hashing overlaps the file write instead of coming before it.
   */
  hash?: Hash;
}

/** A Writable into `path` that shows every chunk to `options.onChunk` as well. */
export function fileSink(path: string, options: FileSinkOptions = {}): Writable {
  let handle: FileHandle | undefined;
  const closeHandle = async () => {
    const open = handle;
    handle = undefined;
    await open?.close();
  };
  return new Writable({
    highWaterMark: FILE_CHUNK,
    construct(done) {
      open(path, options.append ? 'a' : 'w', PRIVATE_FILE_MODE).then((opened) => {
        handle = opened;
        done();
      }, done);
    },
    writev(chunks, done) {
      const buffers = chunks.map(({ chunk }) => chunk as Buffer);
      try {
        for (const buffer of buffers) options.onChunk?.(buffer);
      } catch (error) {
        done(error as Error);
        return;
      }
      const written = writeAll(handle as FileHandle, buffers);
      if (options.hash) for (const buffer of buffers) options.hash.update(buffer);
      written.then(() => done(), done);
    },
    final(done) {
      closeHandle().then(() => done(), done);
    },
    destroy(error, done) {
      closeHandle().then(
        () => done(error),
        () => done(error),
      );
    },
  });
}

/** Writes every buffer, continuing after a short write. */
async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let pending = buffers;
  while (pending.length > 0) {
    const total = pending.reduce((sum, b) => sum + b.length, 0);
    const { bytesWritten } = await handle.writev(pending);
    if (bytesWritten >= total) return;
    let skip = bytesWritten;
    const rest: Buffer[] = [];
    for (const buffer of pending) {
      if (skip >= buffer.length) {
        skip -= buffer.length;
        continue;
      }
      rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
      skip = 0;
    }
    pending = rest;
  }
}

/**
 * Pipes `source` into `sink` and resolves once the sink has finished (its file closed). Unlike
 * `pipeline`, a failure of the sink (a size limit, a full disk) never destroys the source: it is
 * unpiped and left paused, so the caller can still read its rest (an HTTP upload that keeps its
 * connection and gets its answer) or destroy it. A source that fails or closes before its end
 * destroys the sink and rejects.
 */
export function pourInto(source: Readable, sink: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      source.off('error', settle);
      source.off('close', onSourceClose);
      if (!error) {
        resolve();
        return;
      }
      source.unpipe(sink);
      source.pause();
      sink.destroy();
      reject(error);
    };
    const onSourceClose = () => {
      if (!source.readableEnded) settle(new Error('the body ended before it was complete'));
    };
    source.on('error', settle).on('close', onSourceClose);
    finished(sink, (error) => settle(error ?? undefined));
    source.pipe(sink);
  });
}
