/**
 * Streams an upload's body (or a fetched document) into a file through a temporary one that is
 * renamed into place: counted, held to the size limit and hashed with SHA-256 in the sink itself,
 * so a 1 GB body is never held in memory and no stream stands between the body and the file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { fileSink, pourInto } from '../../lib/file-sink.js';
import { TooLargeError } from './uncommitted-blocks.js';

/**
 * Streams `body` into `target`, refusing it with TooLargeError past `maxBytes`; resolves to its
 * size and SHA-256. On a failure the temporary file is removed and the body is left unread, not
 * destroyed: its caller drains it (an upload's connection goes on and carries the answer) or
 * destroys it (a fetch).
 */
export async function streamToFile(
  body: Readable,
  target: string,
  maxBytes: number,
  /** Also sees every chunk (and may throw to refuse the body). */
  counter?: (chunk: Buffer) => void,
): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const onChunk = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) throw new TooLargeError(maxBytes);
    counter?.(chunk);
  };
  const temp = `${target}.${randomUUID()}.tmp`;
  try {
    await pourInto(body, fileSink(temp, { onChunk, hash }));
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { size, sha256: hash.digest('hex') };
}
