/**
 * Documents submitted for printing, on disk under `<dataDir>/files/`: one `<fileid>.bin` per
 * document, its record (owner, state, size, sha256) in the database, uploaded blocks in
 * `<fileid>.blocks/` until a block list commits them. An upload URL takes one completed upload:
 * each upload streams to its own file, and only the first to finish becomes the document (a
 * compare-and-set on the record); later ones, and any upload once Print took the file, get a
 * ConflictError (409), so the bytes of a submitted job never change. Everything streams: bodies
 * go through a hashing counter straight into a temporary file that is renamed into place
 * (upload-stream.ts), so a 1 GB upload is never held in memory; a block list is assembled by
 * block-assembly.ts. Also signs and checks the upload URLs (sasUri; upload-signing.ts).
 * PrepareUpload goes through prepareUpload(), which applies the upload limits (upload-limits.ts:
 * a rate per user, a quota of pending uploads per organization); blocks are held to the per-file
 * caps as they stream in; sweepExpired() (upload-sweep.ts: every SWEEP_INTERVAL_MS on the clock,
 * a real timer, and at PrepareUpload) deletes uploads whose URL expired, their blocks and
 * records, except while an upload of theirs is still streaming.
 */
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, TooManyRequestsError } from '../../lib/errors.js';
import { RateWindow } from '../../lib/rate-window.js';
import type { Logger } from '../../log/logger.js';
import { type BlockListEntry, blockKey } from '../../protocol/sfapi-block-list.js';
import type { StoredFile, StoredFileRepo, StoredFileState } from './stored-file-repo.js';
import { ensurePrivateDir } from '../store/data-files.js';
import { assembleBlocks, resolveBlocks } from './block-assembly.js';
import { TooLargeError, UncommittedBlockBook } from './uncommitted-blocks.js';
import { defaultUploadLimits, type UploadLimits } from './upload-limits.js';
import { type SignatureCheck, UPLOAD_URL_TTL_MS, UploadSigner } from './upload-signing.js';
import { streamToFile } from './upload-stream.js';
import { UploadSweep } from './upload-sweep.js';

export { TooLargeError } from './uncommitted-blocks.js';

export type { StoredFile, StoredFileState } from './stored-file-repo.js';
export { type SignatureCheck, UPLOAD_URL_TTL_MS } from './upload-signing.js';
export { SWEEP_INTERVAL_MS } from './upload-sweep.js';

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

/**
 * The file store. `start()` creates the folder and the signing key; there is nothing to stop.
 * Files stay until `remove()` (the job service decides when a printed file goes).
 */
export class FileStore {
  private readonly signer: UploadSigner;
  private readonly dir: string;
  private readonly maxBytes: number;
  /** The upload limits in force. */
  readonly limits: UploadLimits;
  private readonly prepareRate: RateWindow;
  /** Uncommitted blocks per file and organization, held to the limits. */
  private readonly uncommitted: UncommittedBlockBook;
  private readonly sweep: UploadSweep;

  constructor(private readonly options: FileStoreOptions) {
    this.dir = join(options.dataDir, 'files');
    this.signer = new UploadSigner(this.dir, options.clock);
    this.sweep = new UploadSweep(options.records, options.clock, options.logger, (id) => this.remove(id));
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
    await this.sweep.sweepIfDue();
    const now = this.options.clock.now();
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
  sweepExpired(): Promise<number> {
    return this.sweep.sweep();
  }

  /** Stops the sweep timer. */
  stop(): void {
    this.sweep.stop();
  }

  /** Creates `<dataDir>/files/` and loads or makes the signing key. */
  async start(): Promise<void> {
    await ensurePrivateDir(this.dir);
    await this.signer.start();
    this.sweep.start();
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
    return this.signer.sign(fileId);
  }

  /** Checks the `se` and `sig` parameters of an upload request. */
  checkSignature(fileId: string, query: { se?: unknown; sig?: unknown }): SignatureCheck {
    return this.signer.check(fileId, query);
  }

  /** Streams a whole document into its own file and makes it the document (first upload only). */
  async writeDocument(file: StoredFile, body: Readable): Promise<void> {
    this.assertWritable(file);
    await this.sweep.whileWriting(file.fileId, async () => {
      const path = this.uploadPath(file.fileId);
      const { size, sha256 } = await this.streamTo(body, path);
      await this.complete(file, { path, size, sha256, committed: [] });
      this.uncommitted.forget(file.fileId);
      this.options.logger.debug({ file: file.fileId, size }, 'document uploaded');
    });
  }

  /** The first `bytes` bytes of a ready document (fewer when it is shorter), for its type check. */
  async head(file: StoredFile, bytes: number): Promise<Buffer> {
    const handle = await open(file.path, 'r');
    try {
      const head = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(head, 0, bytes, 0);
      return head.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
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
    await this.sweep.whileWriting(file.fileId, async () => {
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

  /**
   * Assembles the document from the listed blocks in order (uncommitted blocks and ranges of the
   * committed document), marks it ready and drops the uncommitted blocks. A missing block gives a
   * ValidationError naming `blocklist`.
   */
  async commitBlockList(file: StoredFile, entries: BlockListEntry[]): Promise<void> {
    this.assertWritable(file);
    const sources = await resolveBlocks(file, entries, this.blockDir(file.fileId));
    const committed: NonNullable<StoredFile['committed']> = [];
    let offset = 0;
    for (const source of sources) {
      committed.push({ id: source.id, offset, length: source.length });
      offset += source.length;
    }
    // Each block was held to the limit as it came; the document they make is held to it here.
    if (offset > this.maxBytes) throw new TooLargeError(this.maxBytes);
    const path = this.uploadPath(file.fileId);
    const sha256 = await assembleBlocks(sources, `${path}.tmp`);
    await rename(`${path}.tmp`, path);
    await this.complete(file, { path, size: offset, sha256, committed });
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
   * Streams `body` into `target` through a temporary file, hashing and counting on the way, held
   * to the store's size limit (upload-stream.ts: on a failure the body is left unread). Used for
   * uploads and URL fetches alike.
   */
  streamTo(
    body: Readable,
    target: string,
    /** Also sees every chunk (and may throw to refuse the body). */
    counter?: (chunk: Buffer) => void,
  ): Promise<{ size: number; sha256: string }> {
    return streamToFile(body, target, this.maxBytes, counter);
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
