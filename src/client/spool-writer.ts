/**
 * The sink of a document download: one Writable that hashes every chunk and writes it to the
 * spool file in the same pass, buffering up to SPOOL_CHUNK and flushing what queued up with one
 * writev, so a large document costs few system calls and no second read for its hash.
 */
import type { Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { Writable } from 'node:stream';

/** Bytes buffered (and read at once when hashing a file): 1 MiB. */
export const SPOOL_CHUNK = 1024 * 1024;

/** A Writable into `path` (appending when `append`) that feeds every byte to `hash` as well. */
export function hashingSpoolWriter(path: string, hash: Hash, append: boolean): Writable {
  let handle: FileHandle | undefined;
  const closeHandle = async () => {
    const open = handle;
    handle = undefined;
    await open?.close();
  };
  return new Writable({
    highWaterMark: SPOOL_CHUNK,
    construct(done) {
      open(path, append ? 'a' : 'w').then((opened) => {
        handle = opened;
        done();
      }, done);
    },
    writev(chunks, done) {
      const buffers = chunks.map(({ chunk }) => chunk as Buffer);
      for (const buffer of buffers) hash.update(buffer);
      writeAll(handle as FileHandle, buffers).then(() => done(), done);
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
