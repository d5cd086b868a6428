/**
 * Fetches a document named by `fileurl` in a Print request: a streaming GET (redirects
 * followed) written to disk through FileStore.streamTo, so large files never sit in memory.
 * Fetches run in the background; the Print route answers 412 until the fetch has finished.
 * Every connection, redirects included, goes through the outbound address policy
 * (http/outbound-address-policy.ts): private, loopback and link-local addresses are refused
 * unless allowed.
 */
import { Readable } from 'node:stream';
import { Agent, fetch } from 'undici';
import { PermanentError, errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { OutboundAddressRefused, type OutboundAddressPolicy } from '../http/outbound-address-policy.js';
import type { FileStore, StoredFile } from './file-store.js';

/** What a UrlFetcher needs: the store the documents go to and a logger. */
export interface UrlFetcherOptions {
  files: FileStore;
  logger: Logger;
  /** Which addresses may be fetched from. */
  policy: OutboundAddressPolicy;
  /** Gives up on a fetch after this long (default 10 minutes). */
  timeoutMs?: number;
}

/**
 * Runs URL fetches into stored files. `stop()` aborts the fetches still running (their files
 * are marked failed); the caller stops it before closing the file store.
 */
export class UrlFetcher {
  private readonly running = new Map<string, Promise<void>>();
  private readonly controller = new AbortController();
  private readonly dispatcher: Agent;

  constructor(private readonly options: UrlFetcherOptions) {
    this.dispatcher = new Agent({ connect: options.policy.connector() });
  }

  /** Why the literal host of `url` may not be fetched from (ip address or localhost), or undefined. */
  refusal(url: string): string | undefined {
    return this.options.policy.urlRefusal(url);
  }

  /**
   * Starts fetching `url` into `file` (already in state fetching) and returns at once. The file
   * becomes ready, or failed with a reason, when the fetch ends.
   */
  start(file: StoredFile, url: string): void {
    const task = this.fetchInto(file, url).finally(() => this.running.delete(file.fileId));
    this.running.set(file.fileId, task);
  }

  /** Waits until the fetch of `fileId` ends or `ms` pass; true when it has ended. */
  async settled(fileId: string, ms: number): Promise<boolean> {
    const task = this.running.get(fileId);
    if (!task) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = await Promise.race([task.then(() => true as const), timeout]);
    clearTimeout(timer);
    return done;
  }

  /** Aborts every running fetch and waits for them to record their failure. */
  async stop(): Promise<void> {
    this.controller.abort(new Error('emulator stopping'));
    await Promise.allSettled([...this.running.values()]);
    await this.dispatcher.close();
  }

  private async fetchInto(file: StoredFile, url: string): Promise<void> {
    const { files, logger } = this.options;
    const log = logger.child({ file: file.fileId, host: new URL(url).host });
    const signal = AbortSignal.any([
      this.controller.signal,
      AbortSignal.timeout(this.options.timeoutMs ?? 600_000),
    ]);
    try {
      const response = await fetch(url, { signal, redirect: 'follow', dispatcher: this.dispatcher });
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new PermanentError('fetch_failed', `the server answered HTTP ${response.status}`);
      }
      const body = Readable.fromWeb(response.body);
      // A refused document (too large) leaves the body unread: drop it, ending the fetch.
      const { size, sha256 } = await files.streamTo(body, file.path).catch((error: unknown) => {
        body.destroy();
        throw error;
      });
      Object.assign(file, { size, sha256 });
      await files.setState(file, 'ready');
      log.info({ size }, 'fetched document from URL');
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      const reason =
        cause instanceof OutboundAddressRefused
          ? `fetching fileurl failed: ${cause.message}`
          : `fetching fileurl failed: ${errorMessage(error)}${cause ? ` (${errorMessage(cause)})` : ''}`;
      log.warn({ reason }, 'document fetch failed');
      await files.setState(file, 'failed', reason);
    }
  }
}
