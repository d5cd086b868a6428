/**
 * Hashing of stored secrets: scrypt for passwords and client secrets (salted, compared in
 * constant time), SHA-256 for high-entropy bearer secrets such as refresh tokens.
 *
 * scrypt costs tens of milliseconds by design, and the same client secret or device password is
 * presented on every token request and every /TPFM/ command. So a successful verification is
 * remembered for a while (VERIFIED_TTL_MS, at most VERIFIED_MAX entries), keyed by an HMAC of
 * hash and secret under a key that lives only in this process: neither value is kept in clear,
 * and a wrong secret always pays the full scrypt.
 */
import { createHash, createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 } as const;

/** Hashes a password or client secret: `scrypt$N$r$p$<salt b64>$<hash b64>`. */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

const VERIFIED_TTL_MS = 10 * 60_000;
const VERIFIED_MAX = 1000;
const cacheKey = randomBytes(32);
/** HMAC of (stored hash, secret) -> time it was verified; insertion order is age order. */
const verified = new Map<string, number>();

/** True when `secret` matches a hash made by hashSecret; the comparison takes constant time. */
export function verifySecret(secret: string, stored: string): boolean {
  const key = createHmac('sha256', cacheKey).update(stored).update('\0').update(secret).digest('base64');
  const seen = verified.get(key);
  if (seen !== undefined && Date.now() - seen < VERIFIED_TTL_MS) return true;
  if (!verifyWithScrypt(secret, stored)) return false;
  verified.delete(key);
  verified.set(key, Date.now());
  if (verified.size > VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
  return true;
}

function verifyWithScrypt(secret: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, hashText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashText, 'base64');
  const actual = scryptSync(secret, Buffer.from(saltText, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** SHA-256 hex of a high-entropy token (refresh tokens are looked up by this). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A random URL-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
