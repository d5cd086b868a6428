/**
 * Documents submitted for printing, on disk under `<dataDir>/files/`: one `<fileid>.bin` per
 * document, its record (owner, state, size, sha256) in the database, uploaded blocks in
 * `<fileid>.blocks/` until a block list commits them. An upload URL takes one completed upload:
 * each upload streams to its own file, and only the first to finish becomes the document (a
 * compare-and-set on the record); later ones, and any upload once Print took the file, get a
 * ConflictError (409), so the bytes of a submitted job never change. Everything streams: bodies go through a
 * hashing counter straight into a temporary file that is renamed into place, so a 1 GB upload is
 * never held in memory. Also signs and checks the upload URLs (sasUri) with an HMAC key kept in
 * `<dataDir>/files/.signing-key`. PrepareUpload goes through prepareUpload(), which applies the
 * upload limits (upload-limits.ts: a rate per user, a quota of pending uploads per
 * organization); blocks are held to the per-file caps as they stream in; sweepExpired() (every
 * SWEEP_INTERVAL_MS on the clock: a real timer, and at PrepareUpload) deletes uploads whose URL
 * expired, their blocks and records, except while an upload of theirs is still streaming.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, TooManyRequestsError, ValidationError } from '../../lib/errors.js';
import { RateWindow } from '../../lib/rate-window.js';
import { FILE_CHUNK, fileSink, pourInto } from '../../lib/file-sink.js';
import type { Logger } from '../../log/logger.js';
import { type BlockListEntry, blockKey } from '../../protocol/sfapi-block-list.js';
import type { StoredFile, StoredFileRepo, StoredFileState } from './stored-file-repo.js';
import { ensurePrivateDir } from '../store/data-files.js';
import { TooLargeError, UncommittedBlockBook } from './uncommitted-blocks.js';
import { defaultUploadLimits, type UploadLimits } from './upload-limits.js';

export { TooLargeError } from './uncommitted-blocks.js';

export type { StoredFile, StoredFileState } from './stored-file-repo.js';

/** How long a signed upload URL stays valid: one hour. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
/** How often expired uploads are swept, on the clock. */
export const SWEEP_INTERVAL_MS = 60 * 1000;

/** What a FileStore needs: where to keep files, the clock for URL expiry, a logger. */
export interface FileStoreOptions {
  dataDir: string;
  /** Where the records of the files are kept. */
  records: StoredFileRepo;
  clock: Clock;
  logger: Logger;
  /** Largest document accepted, in bytes (default 4 GiB). */
  maxBytes?: number;
  /** Limits of PrepareUpload uploads (defaults: defaultUploadLimits). */
  uploadLimits?: Partial<UploadLimits>;
}

/** Result of checking a signed query string. */
export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/**
 * The file store. `start()` creates the folder and the signing key; there is nothing to stop.
 * Files stay until `remove()` (the job service decides when a printed file goes).
 */
export class FileStore {
  private key = Buffer.alloc(0);
  private readonly dir: string;
  private readonly maxBytes: number;
  /** The upload limits in force. */
  readonly limits: UploadLimits;
  private readonly prepareRate: RateWindow;
  /** Uncommitted blocks per file and organization, held to the limits. */
  private readonly uncommitted: UncommittedBlockBook;
  /** Uploads streaming now, per file id: the sweep leaves their files alone. */
  private readonly writing = new Map<string, number>();
  private lastSweep = Number.NEGATIVE_INFINITY;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FileStoreOptions) {
    this.dir = join(options.dataDir, 'files');
    this.maxBytes = options.maxBytes ?? 4 * 1024 ** 3;
    this.limits = { ...defaultUploadLimits(this.maxBytes), ...options.uploadLimits };
    this.uncommitted = new UncommittedBlockBook(this.limits);
    this.prepareRate = new RateWindow(
      options.clock,
      this.limits.prepareRate,
      'PrepareUpload calls of this user',
    );
  }

  /**
   * A new pending upload of the user (PrepareUpload): refused with TooManyRequestsError (429,
   * Retry-After) past the user's rate or the organization's quota of pending uploads.
   */
  async prepareUpload(organizationId: string, userId: string): Promise<StoredFile> {
    const now = this.options.clock.now();
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) await this.sweepExpired();
    this.prepareRate.take(`user:${userId}`);
    const pending = this.options.records.pendingUploads(organizationId, now - UPLOAD_URL_TTL_MS);
    const max = this.limits.maxPendingPerOrganization;
    if (pending.count >= max) {
      const left = (pending.oldest ?? now) + UPLOAD_URL_TTL_MS - now;
      throw new TooManyRequestsError(
        `the organization has ${pending.count} pending uploads, the most it may have (${max}); upload to them or wait until their URLs expire`,
        left,
      );
    }
    return this.create(organizationId, userId);
  }

  /**
   * Deletes the pending uploads whose URL expired (record, blocks, partial files), except those
   * with an upload still streaming (the next sweep takes them). Resolves to how many went.
   */
  async sweepExpired(): Promise<number> {
    const now = this.options.clock.now();
    this.lastSweep = now;
    let swept = 0;
    for (const fileId of this.options.records.expiredPending(now - UPLOAD_URL_TTL_MS)) {
      if (this.writing.has(fileId)) continue;
      await this.remove(fileId);
      swept += 1;
    }
    if (swept > 0) this.options.logger.info({ swept }, 'expired uploads and their blocks deleted');
    return swept;
  }

  /** Stops the sweep timer. */
  stop(): void {
    clearInterval(this.sweepTimer);
  }

  /** Creates `<dataDir>/files/` and loads or makes the signing key. */
  async start(): Promise<void> {
    await ensurePrivateDir(this.dir);
    const keyPath = join(this.dir, '.signing-key');
    try {
      this.key = Buffer.from(await readFile(keyPath, 'utf8'), 'base64');
    } catch {
      this.key = randomBytes(32);
      await writeFile(keyPath, this.key.toString('base64'), { mode: 0o600 });
    }
    this.sweepTimer = setInterval(() => {
      if (this.options.clock.now() - this.lastSweep < SWEEP_INTERVAL_MS) return;
      this.sweepExpired().catch((error: unknown) =>
        this.options.logger.error({ err: error }, 'sweeping expired uploads failed'),
      );
    }, SWEEP_INTERVAL_MS).unref();
  }

  /** Creates the record of a new, empty file owned by the organization. */
  async create(
    organizationId: string,
    userId: string,
    state: StoredFileState = 'pending',
  ): Promise<StoredFile> {
    const fileId = randomUUID();
    const file: StoredFile = {
      fileId,
      organizationId,
      userId,
      state,
      createdAt: this.options.clock.now(),
      path: join(this.dir, `${fileId}.bin`),
      size: 0,
      sha256: '',
    };
    await this.save(file);
    return file;
  }

  /** The record of a file, or undefined (also for ids that cannot be file ids). */
  async get(fileId: string): Promise<StoredFile | undefined> {
    if (!/^[0-9a-f-]{36}$/.test(fileId)) return undefined;
    return this.options.records.find(fileId);
  }

  /** Changes a file's state (and fetch error) and persists the record. */
  async setState(file: StoredFile, state: StoredFileState, error?: string): Promise<void> {
    file.state = state;
    if (error !== undefined) file.error = error;
    await this.save(file);
  }

  /** The signed query string of an upload URL for the file, valid for one hour. */
  signUpload(fileId: string): string {
    const expires = new Date(this.options.clock.now() + UPLOAD_URL_TTL_MS).toISOString();
    const params = new URLSearchParams({ sv: '2024-11-04', sr: 'b', sp: 'cw', se: expires });
    params.set('sig', this.signature(fileId, expires));
    return params.toString();
  }

  /** Checks the `se` and `sig` parameters of an upload request. */
  checkSignature(fileId: string, query: { se?: unknown; sig?: unknown }): SignatureCheck {
    if (typeof query.se !== 'string' || typeof query.sig !== 'string') return 'invalid';
    const expected = Buffer.from(this.signature(fileId, query.se));
    const given = Buffer.from(query.sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    const expiresAt = Date.parse(query.se);
    if (Number.isNaN(expiresAt)) return 'invalid';
    return this.options.clock.now() >= expiresAt ? 'expired' : 'valid';
  }

  /** Streams a whole document into its own file and makes it the document (first upload only). */
  async writeDocument(file: StoredFile, body: Readable): Promise<void> {
    this.assertWritable(file);
    await this.whileWriting(file.fileId, async () => {
      const path = this.uploadPath(file.fileId);
      const { size, sha256 } = await this.streamTo(body, path);
      await this.complete(file, { path, size, sha256, committed: [] });
      this.uncommitted.forget(file.fileId);
      this.options.logger.debug({ file: file.fileId, size }, 'document uploaded');
    });
  }

  /**
   * Print takes a ready (or already printed) file: `printed` keeps its fileid printable again,
   * `consumed` (printanddelete) ends it. The move is one conditional update, so of racing Prints
   * exactly one consumes the file; false when the file is no longer in the state it was read in.
   */
  take(file: StoredFile, to: 'printed' | 'consumed'): boolean {
    if (file.state !== 'ready' && file.state !== 'printed') return false;
    if (!this.options.records.transition(file.fileId, file.state, to)) return false;
    file.state = to;
    return true;
  }

  /** Streams one uploaded block to `<fileid>.blocks/<key>`; a block sent twice is replaced. */
  async writeBlock(file: StoredFile, blockId: string, body: Readable): Promise<void> {
    this.assertWritable(file);
    const blockDir = this.blockDir(file.fileId);
    await this.whileWriting(file.fileId, async () => {
      const key = blockKey(blockId);
      const write = await this.uncommitted.begin(file, blockDir, key);
      try {
        await ensurePrivateDir(blockDir);
        await this.streamTo(body, join(blockDir, key), write.count);
      } catch (error) {
        write.failed();
        throw error;
      }
      write.succeeded();
    });
  }

  /** Runs an upload of the file, marked as streaming so the sweep leaves the file alone. */
  private async whileWriting<T>(fileId: string, run: () => Promise<T>): Promise<T> {
    this.writing.set(fileId, (this.writing.get(fileId) ?? 0) + 1);
    try {
      return await run();
    } finally {
      const left = (this.writing.get(fileId) ?? 1) - 1;
      if (left > 0) this.writing.set(fileId, left);
      else this.writing.delete(fileId);
    }
  }

  /**
   * Assembles the document from the listed blocks in order (uncommitted blocks and ranges of the
   * committed document), marks it ready and drops the uncommitted blocks. A missing block gives a
   * ValidationError naming `blocklist`.
   */
  async commitBlockList(file: StoredFile, entries: BlockListEntry[]): Promise<void> {
    this.assertWritable(file);
    const sources = await this.resolveBlocks(file, entries);
    const hash = createHash('sha256');
    const path = this.uploadPath(file.fileId);
    const temp = `${path}.tmp`;
    const committed: NonNullable<StoredFile['committed']> = [];
    let offset = 0;
    for (const source of sources) {
      committed.push({ id: source.id, offset, length: source.length });
      offset += source.length;
    }
    // Each block was held to the limit as it came; the document they make is held to it here.
    if (offset > this.maxBytes) throw new TooLargeError(this.maxBytes);
    // One pipeline over all blocks in order (a pipeline per block onto one file stream would
    // pile listeners on it), hashing on the way.
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
      await pipeline(blocks, fileSink(temp));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await rename(temp, path);
    await this.complete(file, { path, size: offset, sha256: hash.digest('hex'), committed });
    await rm(this.blockDir(file.fileId), { recursive: true, force: true });
    this.uncommitted.forget(file.fileId);
    this.options.logger.debug(
      { file: file.fileId, size: offset, blocks: sources.length },
      'block list committed',
    );
  }

  /** Deletes a file, its blocks and its record. */
  async remove(fileId: string): Promise<void> {
    this.uncommitted.forget(fileId);
    const path = this.options.records.find(fileId)?.path;
    this.options.records.remove(fileId);
    await rm(join(this.dir, `${fileId}.bin`), { force: true });
    if (path?.startsWith(this.dir)) await rm(path, { force: true });
    await rm(this.blockDir(fileId), { recursive: true, force: true });
  }

  /**
   * Deletes the documents and blocks of `files` from disk, and their records where still there
   * (a deleted organization's records go in its transaction; its bytes go after it commits).
   */
  async removeAll(files: readonly StoredFile[]): Promise<void> {
    for (const file of files) {
      this.uncommitted.forget(file.fileId);
      this.options.records.remove(file.fileId);
      await rm(join(this.dir, `${file.fileId}.bin`), { force: true });
      if (file.path.startsWith(this.dir)) await rm(file.path, { force: true });
      await rm(this.blockDir(file.fileId), { recursive: true, force: true });
    }
  }

  /**
   * Streams `body` into `target` through a temporary file, hashing and counting on the way.
   * Used for uploads and URL fetches alike. On a failure (TooLargeError past the limit) the body
   * is left unread, not destroyed: its caller drains it (an upload's connection goes on and
   * carries the answer) or destroys it (a fetch).
   */
  async streamTo(
    body: Readable,
    target: string,
    /** Also sees every chunk (and may throw to refuse the body). */
    counter?: (chunk: Buffer) => void,
  ): Promise<{ size: number; sha256: string }> {
    const hash = createHash('sha256');
    let size = 0;
    const limit = this.maxBytes;
    // Counted and hashed in the sink itself (the hash while each write runs): no stream between
    // the body and the file.
    const onChunk = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) throw new TooLargeError(limit);
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

  private async resolveBlocks(file: StoredFile, entries: BlockListEntry[]) {
    const resolved: { id: string; path: string; length: number; range?: { start: number; end: number } }[] =
      [];
    for (const entry of entries) {
      const uncommitted = join(this.blockDir(file.fileId), blockKey(entry.id));
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

  private assertWritable(file: StoredFile): void {
    if (file.state === 'ready') throw alreadyUploaded(file.fileId);
    if (file.state !== 'pending') {
      throw new ConflictError(`file ${file.fileId} can no longer be uploaded (${file.state})`);
    }
  }

  /** Makes the uploaded bytes at `done.path` the document, unless another upload finished first. */
  private async complete(
    file: StoredFile,
    done: Pick<StoredFile, 'path' | 'size' | 'sha256' | 'committed'>,
  ): Promise<void> {
    const candidate = { ...file, ...done, state: 'ready' as const };
    if (!this.options.records.completeUpload(candidate)) {
      await rm(done.path, { force: true });
      throw alreadyUploaded(file.fileId);
    }
    Object.assign(file, candidate);
  }

  /** A path of its own for each upload: `<fileid>.<random>.bin`. */
  private uploadPath(fileId: string): string {
    return join(this.dir, `${fileId}.${randomUUID()}.bin`);
  }

  private signature(fileId: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${fileId}\n${expires}\ncw`).digest('base64url');
  }

  private async save(file: StoredFile): Promise<void> {
    this.options.records.save(file);
  }

  private blockDir(fileId: string): string {
    return join(this.dir, `${fileId}.blocks`);
  }
}

function alreadyUploaded(fileId: string): ConflictError {
  return new ConflictError(`file ${fileId} was already uploaded; ask PrepareUpload for a new URL`);
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}
