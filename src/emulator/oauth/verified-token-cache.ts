/**
 * Remembers the claims of access tokens whose RS256 signature was already checked. Apps and
 * connectors send the same bearer token on every call, and checking the signature again each
 * time was the largest single CPU cost of a Status poll. A signature never stops being valid
 * for a key the service keeps, so only the time rules (exp, nbf) and the issuer are checked
 * again on a hit, exactly as the full verification checks them. Revocation is not cached here:
 * the caller checks it on every call.
 *
 * Bounded: when full, the oldest entry goes (insertion order). Expired entries leave on lookup.
 */
import type { JWTPayload } from 'jose';

/** Why a remembered token no longer passes. */
export type CachedTokenProblem = 'expired' | 'not_yet_valid' | 'wrong_issuer';

export type CachedTokenCheck = { ok: true; payload: JWTPayload } | { ok: false; problem: CachedTokenProblem };

export class VerifiedTokenCache {
  private readonly entries = new Map<string, JWTPayload>();

  constructor(private readonly capacity = 10_000) {}

  /** The remembered claims of `token` checked against `nowMs` and `issuer`; undefined when unknown. */
  check(token: string, issuer: string, nowMs: number): CachedTokenCheck | undefined {
    const payload = this.entries.get(token);
    if (!payload) return undefined;
    const now = Math.floor(nowMs / 1000);
    if (typeof payload.exp === 'number' && payload.exp <= now) {
      this.entries.delete(token);
      return { ok: false, problem: 'expired' };
    }
    if (typeof payload.nbf === 'number' && payload.nbf > now) return { ok: false, problem: 'not_yet_valid' };
    if (payload.iss !== issuer) return { ok: false, problem: 'wrong_issuer' };
    return { ok: true, payload };
  }

  /** Remembers a token whose signature and claims were just verified in full. */
  remember(token: string, payload: JWTPayload): void {
    if (this.entries.size >= this.capacity && !this.entries.has(token)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, payload);
  }

  /** Forgets everything (for example when the set of public keys changes). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
