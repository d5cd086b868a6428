/**
 * The signed upload URLs (sasUri) of the file store: an HMAC-SHA256 over the file id and the
 * expiry, with a key kept in `<filesDir>/.signing-key` (made on first start, 0600), so URLs
 * stay valid across restarts for their hour. The expiry is read on the emulator's clock.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.js';

/** How long a signed upload URL stays valid: one hour. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;

/** Result of checking a signed query string. */
export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/** Signs and checks upload URLs; `start()` loads or makes the key. */
export class UploadSigner {
  private key = Buffer.alloc(0);

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
  ) {}

  /** Loads `<dir>/.signing-key`, or makes one (the folder must exist). */
  async start(): Promise<void> {
    const keyPath = join(this.dir, '.signing-key');
    try {
      this.key = Buffer.from(await readFile(keyPath, 'utf8'), 'base64');
    } catch {
      this.key = randomBytes(32);
      await writeFile(keyPath, this.key.toString('base64'), { mode: 0o600 });
    }
  }

  /** The signed query string of an upload URL for the file, valid for UPLOAD_URL_TTL_MS. */
  sign(fileId: string): string {
    const expires = new Date(this.clock.now() + UPLOAD_URL_TTL_MS).toISOString();
    const params = new URLSearchParams({ sv: '2024-11-04', sr: 'b', sp: 'cw', se: expires });
    params.set('sig', this.signature(fileId, expires));
    return params.toString();
  }

  /** Checks the `se` and `sig` parameters of an upload request. */
  check(fileId: string, query: { se?: unknown; sig?: unknown }): SignatureCheck {
    if (typeof query.se !== 'string' || typeof query.sig !== 'string') return 'invalid';
    const expected = Buffer.from(this.signature(fileId, query.se));
    const given = Buffer.from(query.sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    const expiresAt = Date.parse(query.se);
    if (Number.isNaN(expiresAt)) return 'invalid';
    return this.clock.now() >= expiresAt ? 'expired' : 'valid';
  }

  private signature(fileId: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${fileId}\n${expires}\ncw`).digest('base64url');
  }
}
