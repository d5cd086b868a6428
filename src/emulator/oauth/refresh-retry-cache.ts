/**
 * Retries of a refresh that the client may have lost. A client that persists a random
 * `retry_key` BEFORE it sends a refresh (the agent's token store does) and sends that key with
 * the refresh can present the same refresh token with the same key again after a crash or a
 * lost answer, and gets the very answer the first attempt produced — instead of tripping replay
 * detection, which revokes the family. A presenter without the key (a thief replaying an old
 * token) still trips it. Only answers whose refresh token is still unspent are given out again.
 * Kept in memory for RETRY_WINDOW_MS (lost on an emulator restart); nothing to clean up.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/** How long an answer can be fetched again with its retry key. */
export const RETRY_WINDOW_MS = 60 * 60_000;
/** At most this many remembered answers; the oldest go first. */
const MAX_ENTRIES = 10_000;
/** A retry key is 16 to 128 URL-safe characters. */
const RETRY_KEY = /^[A-Za-z0-9_-]{16,128}$/;

interface Entry<T> {
  answer: T;
  expiresAt: number;
}

/** Remembered refresh answers keyed by (refresh token, retry key). */
export class RefreshRetryCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly clock: Clock) {}

  /** Whether `key` is a usable retry key (absent or malformed keys are simply not used). */
  static isRetryKey(key: string | undefined): key is string {
    return key !== undefined && RETRY_KEY.test(key);
  }

  /** The answer of an earlier refresh of `refreshToken` sent with `retryKey`, if remembered. */
  answer(refreshToken: string, retryKey: string | undefined): T | undefined {
    if (!RefreshRetryCache.isRetryKey(retryKey)) return undefined;
    const id = entryId(refreshToken, retryKey);
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.answer;
  }

  /** Remembers the answer of a refresh sent with `retryKey` (no key: nothing remembered). */
  remember(refreshToken: string, retryKey: string | undefined, answer: T): void {
    if (!RefreshRetryCache.isRetryKey(retryKey)) return;
    this.prune();
    this.entries.set(entryId(refreshToken, retryKey), {
      answer,
      expiresAt: this.clock.now() + RETRY_WINDOW_MS,
    });
  }

  /** Number of remembered answers (tests). */
  get size(): number {
    return this.entries.size;
  }

  private prune(): void {
    const now = this.clock.now();
    // Insertion order is expiry order: stop at the first live entry.
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.entries.delete(id);
    }
    while (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}

function entryId(refreshToken: string, retryKey: string): string {
  return createHash('sha256').update(refreshToken).update('\0').update(retryKey).digest('hex');
}
