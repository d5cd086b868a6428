/**
 * The document a block list makes (Azure's Put Block List): each listed block resolved to its
 * bytes (an uncommitted block's file, or a range of the committed document for a block kept
 * from it), then all read in order in 1 MiB reads into one new file, hashed on the way.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '../../lib/errors.js';
import { FILE_CHUNK, fileSink } from '../../lib/file-sink.js';
import { type BlockListEntry, blockKey } from '../../protocol/sfapi-block-list.js';
import type { StoredFile } from './stored-file-repo.js';

/** Where one listed block's bytes are. */
export interface BlockSource {
  id: string;
  path: string;
  length: number;
  /** Inclusive byte range within `path`; the whole file when absent. */
  range?: { start: number; end: number };
}

/**
 * Resolves the listed blocks of `file` (uncommitted ones in `blockDir`): a block that is
 * neither uploaded nor part of the committed document gives a ValidationError naming `blocklist`.
 */
export async function resolveBlocks(
  file: StoredFile,
  entries: readonly BlockListEntry[],
  blockDir: string,
): Promise<BlockSource[]> {
  const resolved: BlockSource[] = [];
  for (const entry of entries) {
    const uncommitted = join(blockDir, blockKey(entry.id));
    const size = entry.kind === 'Committed' ? undefined : await fileSize(uncommitted);
    if (size !== undefined) {
      resolved.push({ id: entry.id, path: uncommitted, length: size });
      continue;
    }
    const previous =
      entry.kind === 'Uncommitted' ? undefined : file.committed?.find((b) => b.id === entry.id);
    if (!previous)
      throw new ValidationError('blocklist', `block ${entry.id} (${entry.kind}) was not uploaded`);
    const range = { start: previous.offset, end: previous.offset + previous.length - 1 };
    resolved.push({ id: entry.id, path: file.path, length: previous.length, range });
  }
  return resolved;
}

/** Writes the blocks in order into `target` (removed again on a failure); resolves to its SHA-256. */
export async function assembleBlocks(sources: readonly BlockSource[], target: string): Promise<string> {
  const hash = createHash('sha256');
  // One pipeline over all blocks in order (a pipeline per block onto one file stream would pile
  // listeners on it), hashing on the way.
  async function* blocks() {
    for (const source of sources) {
      if (source.length === 0) continue;
      const range = source.range ?? { start: 0, end: Number.POSITIVE_INFINITY };
      const reader = createReadStream(source.path, {
        start: range.start,
        end: range.end,
        highWaterMark: FILE_CHUNK,
      });
      for await (const chunk of reader) {
        hash.update(chunk as Buffer);
        yield chunk as Buffer;
      }
    }
  }
  try {
    await pipeline(blocks, fileSink(target));
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
  return hash.digest('hex');
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}
