/**
 * Hashing of stored secrets: scrypt for passwords and client secrets (salted, compared in
 * constant time), SHA-256 for high-entropy bearer secrets such as refresh tokens.
 *
 * scrypt costs tens of milliseconds of CPU by design. SecretHasher runs it through node:crypto's
 * callback API, i.e. on libuv's thread pool, never on the event loop, and at most `concurrency`
 * at a time with at most `queueLimit` waiting: a check beyond that is refused at once with a
 * TooManyRequestsError (HTTP 429), so a flood of wrong secrets cannot queue unbounded work.
 *
 * The same client secret or device password is presented on every token request and every
 * /TPFM/ command, so a successful verification is remembered for VERIFIED_TTL_MS of the injected
 * clock (at most VERIFIED_MAX entries), keyed by an HMAC of hash and secret under a key that
 * lives only in this instance: neither value is kept in clear, and a wrong secret always pays
 * the full scrypt. One instance per emulator (built in app.ts); nothing to clean up.
 */
import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { TooManyRequestsError } from '../../lib/errors.js';

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 } as const;
const VERIFIED_TTL_MS = 10 * 60_000;
const VERIFIED_MAX = 1000;
/** scrypt's memory need is 128 * N * r bytes; allow the stored parameters up to twice ours. */
const MAX_MEMORY = 2 * 128 * SCRYPT.N * SCRYPT.r + 1024 * 1024;

/** How much scrypt work one hasher lets run and wait. */
export interface SecretHasherLimits {
  /** scrypt runs at the same time (the thread pool has 4 threads by default). */
  concurrency: number;
  /** Checks allowed to wait for a free slot; more are refused with 429. */
  queueLimit: number;
}

export const defaultHasherLimits: SecretHasherLimits = { concurrency: 1, queueLimit: 32 };

interface ScryptParams {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  expected: Buffer;
}

/** See the file comment. */
export class SecretHasher {
  private readonly cacheKey = randomBytes(32);
  /** HMAC of (stored hash, secret) -> time it was verified; insertion order is age order. */
  private readonly verified = new Map<string, number>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private scryptRuns = 0;
  private cacheHits = 0;
  private dummy: Promise<string> | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly limits: SecretHasherLimits = defaultHasherLimits,
  ) {}

  /** Hashes a password or client secret: `scrypt$N$r$p$<salt b64>$<hash b64>`. */
  async hash(secret: string): Promise<string> {
    const salt = randomBytes(16);
    const hash = await this.run(secret, { ...SCRYPT, salt, expected: Buffer.alloc(SCRYPT.keyLength) });
    return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join(
      '$',
    );
  }

  /**
   * True while a successful verify() of this secret against this hash is remembered (no scrypt,
   * not counted): what a shortcut past verify() may rely on without outliving that memory.
   */
  remembers(secret: string, stored: string): boolean {
    const seen = this.verified.get(this.memoryKey(secret, stored));
    return seen !== undefined && this.clock.now() - seen < VERIFIED_TTL_MS;
  }

  /** True when `secret` matches a hash made by hash(); the comparison takes constant time. */
  async verify(secret: string, stored: string): Promise<boolean> {
    const key = this.memoryKey(secret, stored);
    const seen = this.verified.get(key);
    if (seen !== undefined && this.clock.now() - seen < VERIFIED_TTL_MS) {
      this.cacheHits++;
      return true;
    }
    const params = parseStored(stored);
    if (!params) return false;
    const actual = await this.run(secret, params);
    if (actual.length !== params.expected.length || !timingSafeEqual(actual, params.expected)) return false;
    this.verified.delete(key);
    this.verified.set(key, this.clock.now());
    if (this.verified.size > VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value as string);
    return true;
  }

  /** Spends the work of a real check for an account that does not exist; always false. */
  async verifyUnknown(secret: string): Promise<false> {
    this.dummy ??= this.hash(randomBytes(16).toString('base64'));
    await this.verify(secret, await this.dummy);
    return false;
  }

  /** Counters for tests and diagnostics. */
  stats(): { scryptRuns: number; cacheHits: number } {
    return { scryptRuns: this.scryptRuns, cacheHits: this.cacheHits };
  }

  private memoryKey(secret: string, stored: string): string {
    return createHmac('sha256', this.cacheKey).update(stored).update('\0').update(secret).digest('base64');
  }

  private async run(secret: string, params: ScryptParams): Promise<Buffer> {
    await this.acquire();
    try {
      this.scryptRuns++;
      return await new Promise<Buffer>((resolve, reject) => {
        const options = { N: params.N, r: params.r, p: params.p, maxmem: MAX_MEMORY };
        scrypt(secret, params.salt, params.expected.length, options, (error, key) =>
          error ? reject(error) : resolve(key),
        );
      });
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.limits.queueLimit) {
      return Promise.reject(
        new TooManyRequestsError('too many password checks are waiting; try again shortly', 1000),
      );
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

function parseStored(stored: string): ScryptParams | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return undefined;
  if (128 * N * r > MAX_MEMORY || p > 4) return undefined;
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length < 16) return undefined;
  return { N, r, p, salt: Buffer.from(parts[4]!, 'base64'), expected };
}

/** SHA-256 hex of a high-entropy token (refresh tokens are looked up by this). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A random URL-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
