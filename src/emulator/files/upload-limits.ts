/**
 * The limits of uploads through PrepareUpload URLs:
 * - a file holds at most `maxUncommittedBlocks` uncommitted blocks of at most
 *   `maxUncommittedBytes` together (a block list commits them and frees the room);
 * - an organization has at most `maxPendingPerOrganization` pending uploads (prepared, not yet
 *   uploaded, URL not expired), whose uncommitted blocks hold at most
 *   `maxPendingBytesPerOrganization` together;
 * - a user calls PrepareUpload at most `prepareRate.max` times in `prepareRate.windowMs`.
 * Blocks are counted by uncommitted-blocks.ts; expired uploads and their blocks are swept by
 * file-store.ts. Pure data; nothing to clean up.
 */
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
