/**
 * Retries of a refresh that the client may have lost. A client that persists a random
 * `retry_key` BEFORE it sends a refresh (the agent's token store does) and sends that key with
 * the refresh can present the same refresh token with the same key again after a crash or a
 * lost answer, and gets the very answer the first attempt produced — instead of tripping replay
 * detection, which revokes the family. A presenter without the key (a thief replaying an old
 * token) still trips it. Only answers whose refresh token is still unspent are given out again.
 *
 * The answers live in SQLite (`refresh_retries`) for RETRY_WINDOW_MS, so a retry also works
 * after an emulator restart. A row is found by SHA-256(token, key) and its answer is sealed
 * (AES-256-GCM) under a key derived from the spent refresh token and the retry key, which the
 * database never holds: a copied database reveals no token. Expired rows go on each write.
 * Borrowing the database handle; the owner closes it.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { EmulatorDatabase } from '../store/database.js';

/**
 * How long an answer can be fetched again with its retry key: the life of the access token it
 * holds (after that the answer would carry an expired token).
 */
export const RETRY_WINDOW_MS = 60 * 60_000;
/** A retry key is 16 to 128 URL-safe characters. */
const RETRY_KEY = /^[A-Za-z0-9_-]{16,128}$/;
const IV_BYTES = 12;

/** Remembered refresh answers keyed by (refresh token, retry key). */
export class RefreshRetryCache<T> {
  constructor(
    private readonly db: EmulatorDatabase,
    private readonly clock: Clock,
  ) {}

  /** Whether `key` is a usable retry key (absent or malformed keys are simply not used). */
  static isRetryKey(key: string | undefined): key is string {
    return key !== undefined && RETRY_KEY.test(key);
  }

  /** The answer of an earlier refresh of `refreshToken` sent with `retryKey`, if remembered. */
  answer(refreshToken: string, retryKey: string | undefined): T | undefined {
    if (!RefreshRetryCache.isRetryKey(retryKey)) return undefined;
    const row = this.db
      .prepare('SELECT sealed_answer FROM refresh_retries WHERE id = ? AND expires_at > ?')
      .get(entryId(refreshToken, retryKey), this.clock.now()) as { sealed_answer: string } | undefined;
    if (!row) return undefined;
    return JSON.parse(open(row.sealed_answer, sealingKey(refreshToken, retryKey))) as T;
  }

  /** Remembers the answer of a refresh sent with `retryKey` (no key: nothing remembered). */
  remember(refreshToken: string, retryKey: string | undefined, answer: T): void {
    if (!RefreshRetryCache.isRetryKey(retryKey)) return;
    const now = this.clock.now();
    this.db.prepare('DELETE FROM refresh_retries WHERE expires_at <= ?').run(now);
    const sealed = seal(JSON.stringify(answer), sealingKey(refreshToken, retryKey));
    this.db
      .prepare(
        `INSERT INTO refresh_retries (id, sealed_answer, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET sealed_answer = excluded.sealed_answer, expires_at = excluded.expires_at`,
      )
      .run(entryId(refreshToken, retryKey), sealed, now + RETRY_WINDOW_MS);
  }

  /** Number of remembered answers, expired ones included until the next write (tests). */
  get size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM refresh_retries').get() as { n: number }).n;
  }
}

function entryId(refreshToken: string, retryKey: string): string {
  return createHash('sha256').update(refreshToken).update('\0').update(retryKey).digest('hex');
}

function sealingKey(refreshToken: string, retryKey: string): Buffer {
  return createHmac('sha256', refreshToken).update('refresh-retry-answer\0').update(retryKey).digest();
}

function seal(plain: string, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

function open(sealed: string, key: Buffer): string {
  const [iv = '', tag = '', body = ''] = sealed.split('.');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
