/**
 * The bookkeeping of uncommitted blocks (uploaded with comp=block, not yet in a block list): per
 * file its blocks' sizes and bytes, per organization the bytes of all its files, held to the
 * upload limits as the bytes stream in, so parallel blocks cannot overshoot together. A file's
 * entry is read from its block folder on first use (after a restart) and forgotten when its
 * blocks are committed or removed. In memory only; nothing to clean up.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type ErrorCode, PrintRelayError } from '../../lib/errors.js';
import type { UploadLimits } from './upload-limits.js';

/** Thrown when a body exceeds a size limit; mapped to 413. */
export class TooLargeError extends PrintRelayError<ErrorCode> {
  constructor(limit: number, message = `the document exceeds ${limit} bytes`) {
    super('too_large', message);
  }
}

/** A block beyond a file's uncommitted block count; answered 409 BlockCountExceedsLimit. */
export class BlockCountError extends PrintRelayError<ErrorCode> {
  constructor(limit: number) {
    super(
      'block_count',
      `a file holds at most ${limit} uncommitted blocks; commit them with a block list first`,
    );
  }
}

/** One file's uncommitted blocks: size per block key, and the bytes they hold (writes under way included). */
interface FileBlocks {
  organizationId: string;
  sizes: Map<string, number>;
  bytes: number;
}

/** One block being written: count() sees every chunk (throws past a cap); then succeeded() or failed(). */
export interface BlockWrite {
  count(chunk: Buffer): void;
  succeeded(): void;
  failed(): void;
}

/** See the file comment. */
export class UncommittedBlockBook {
  private readonly files = new Map<string, FileBlocks>();
  private readonly organizations = new Map<string, number>();

  constructor(private readonly limits: UploadLimits) {}

  /**
   * Starts writing block `key` of the file whose blocks live in `blockDir`; throws
   * BlockCountError when it would be one block too many (a block sent again replaces its old one).
   */
  async begin(
    file: { fileId: string; organizationId: string },
    blockDir: string,
    key: string,
  ): Promise<BlockWrite> {
    const blocks = await this.of(file, blockDir);
    const previous = blocks.sizes.get(key);
    const {
      maxUncommittedBlocks,
      maxUncommittedBytes: cap,
      maxPendingBytesPerOrganization: orgCap,
    } = this.limits;
    if (previous === undefined && blocks.sizes.size >= maxUncommittedBlocks)
      throw new BlockCountError(maxUncommittedBlocks);
    blocks.sizes.set(key, previous ?? 0);
    const replaced = previous ?? 0;
    let added = 0;
    return {
      count: (chunk) => {
        added += chunk.length;
        blocks.bytes += chunk.length;
        const orgBytes = this.addOrganizationBytes(blocks.organizationId, chunk.length);
        if (blocks.bytes - replaced > cap)
          throw new TooLargeError(cap, `the uncommitted blocks of a file may hold at most ${cap} bytes`);
        if (orgBytes - replaced > orgCap)
          throw new TooLargeError(
            orgCap,
            `the pending uploads of the organization may hold at most ${orgCap} bytes of uncommitted blocks`,
          );
      },
      succeeded: () => {
        blocks.bytes -= replaced;
        this.addOrganizationBytes(blocks.organizationId, -replaced);
        blocks.sizes.set(key, added);
      },
      failed: () => {
        blocks.bytes -= added;
        this.addOrganizationBytes(blocks.organizationId, -added);
        if (previous === undefined) blocks.sizes.delete(key);
      },
    };
  }

  /** Forgets the file's uncommitted blocks (committed, uploaded whole, or removed). */
  forget(fileId: string): void {
    const blocks = this.files.get(fileId);
    if (!blocks) return;
    this.files.delete(fileId);
    this.addOrganizationBytes(blocks.organizationId, -blocks.bytes);
  }

  /** The file's entry, read from its folder the first time. */
  private async of(file: { fileId: string; organizationId: string }, blockDir: string): Promise<FileBlocks> {
    const known = this.files.get(file.fileId);
    if (known) return known;
    const read = await readBlockFolder(blockDir, file.organizationId);
    const raced = this.files.get(file.fileId);
    if (raced) return raced;
    this.files.set(file.fileId, read);
    this.addOrganizationBytes(file.organizationId, read.bytes);
    return read;
  }

  /** Adds to the organization's uncommitted bytes; the new total. */
  private addOrganizationBytes(organizationId: string, delta: number): number {
    const total = (this.organizations.get(organizationId) ?? 0) + delta;
    if (total <= 0) this.organizations.delete(organizationId);
    else this.organizations.set(organizationId, total);
    return total;
  }
}

/** What a file's block folder holds; empty when there is none. */
async function readBlockFolder(blockDir: string, organizationId: string): Promise<FileBlocks> {
  const blocks: FileBlocks = { organizationId, sizes: new Map(), bytes: 0 };
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
