/**
 * The limits of uploads through PrepareUpload URLs, and the bookkeeping of one file's
 * uncommitted blocks:
 * - a file holds at most `maxUncommittedBlocks` uncommitted blocks of at most
 *   `maxUncommittedBytes` together (a block list commits them and frees the room);
 * - an organization has at most `maxPendingPerOrganization` pending uploads (prepared, not yet
 *   uploaded, URL not expired), whose uncommitted blocks hold at most
 *   `maxPendingBytesPerOrganization` together;
 * - a user calls PrepareUpload at most `prepareRate.max` times in `prepareRate.windowMs`.
 * Expired uploads and their blocks are swept (file-store.ts). In memory only; nothing to clean up.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PrintRelayError } from '../../lib/errors.js';
import type { RateLimit } from '../../lib/rate-window.js';

/** See the file comment; every field has a default. */
export interface UploadLimits {
  maxUncommittedBlocks: number;
  /** Default: twice the document size limit (room for blocks a final list leaves out). */
  maxUncommittedBytes: number;
  maxPendingPerOrganization: number;
  maxPendingBytesPerOrganization: number;
  prepareRate: RateLimit;
}

/** The defaults, with the document size limit for the uncommitted bytes. */
export function defaultUploadLimits(maxDocumentBytes: number): UploadLimits {
  return {
    maxUncommittedBlocks: 10_000,
    maxUncommittedBytes: 2 * maxDocumentBytes,
    maxPendingPerOrganization: 500,
    maxPendingBytesPerOrganization: 4 * maxDocumentBytes,
    prepareRate: { max: 600, windowMs: 60_000 },
  };
}

/** A block beyond a file's uncommitted block count; answered 409 BlockCountExceedsLimit. */
export class BlockCountError extends PrintRelayError {
  constructor(limit: number) {
    super(
      'block_count',
      `a file holds at most ${limit} uncommitted blocks; commit them with a block list first`,
    );
  }
}

/** The uncommitted blocks of one file: size per block key, and the bytes they hold (writes under way included). */
export interface UncommittedBlocks {
  organizationId: string;
  sizes: Map<string, number>;
  bytes: number;
}

/** Reads what a file's block folder holds (after a restart); empty when there is none. */
export async function readUncommitted(blockDir: string, organizationId: string): Promise<UncommittedBlocks> {
  const blocks: UncommittedBlocks = { organizationId, sizes: new Map(), bytes: 0 };
  let names: string[];
  try {
    names = await readdir(blockDir);
  } catch {
    return blocks;
  }
  for (const name of names) {
    if (name.endsWith('.tmp')) continue;
    const size = (await stat(join(blockDir, name)).catch(() => undefined))?.size ?? 0;
    blocks.sizes.set(name, size);
    blocks.bytes += size;
  }
  return blocks;
}
