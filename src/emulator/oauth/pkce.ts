/**
 * PKCE (RFC 7636) for the emulator's authorization code flow: checks of code_challenge and
 * code_verifier syntax, and S256 verification. The plain method is refused (RFC 9700 and
 * OAuth 2.1 forbid it for new deployments). Stateless functions; nothing to clean up.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../lib/errors.js';

/** The only code_challenge_method accepted. */
export const PKCE_METHOD = 'S256';

/** code_verifier: 43 to 128 characters of the unreserved set (RFC 7636 section 4.1). */
const VERIFIER_SYNTAX = /^[A-Za-z0-9\-._~]{43,128}$/;

/** code_challenge for S256: base64url of a SHA-256 digest without padding, always 43 characters. */
const S256_CHALLENGE_SYNTAX = /^[A-Za-z0-9_-]{43}$/;

/** Whether a code_verifier has the RFC 7636 syntax. */
export function isValidCodeVerifier(verifier: unknown): verifier is string {
  return typeof verifier === 'string' && VERIFIER_SYNTAX.test(verifier);
}

/**
 * Validates the PKCE parameters of an authorization request and returns the challenge to store
 * with the code. The method defaults to plain in RFC 7636, and plain is refused, so a missing
 * method is refused too. Throws ValidationError naming code_challenge or code_challenge_method.
 */
export function parseCodeChallenge(challenge: unknown, method: unknown): string {
  if (typeof challenge !== 'string' || challenge === '') {
    throw new ValidationError('code_challenge', 'is required (PKCE with S256)');
  }
  if (method !== PKCE_METHOD) {
    const rule = method === 'plain' ? 'plain is not accepted; use S256' : 'must be S256';
    throw new ValidationError('code_challenge_method', rule);
  }
  if (!S256_CHALLENGE_SYNTAX.test(challenge)) {
    throw new ValidationError('code_challenge', 'must be 43 base64url characters (SHA-256, no padding)');
  }
  return challenge;
}

/** The S256 challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))) without padding. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Outcome of a PKCE check at the token endpoint; invalid_grant per RFC 7636 section 4.6. */
export type PkceCheck =
  | { ok: true }
  | { ok: false; error: 'invalid_request' | 'invalid_grant'; description: string };

/**
 * Verifies a token request's code_verifier against the challenge stored with the code, in
 * constant time. A malformed or missing verifier is invalid_request; a mismatch invalid_grant.
 */
export function verifyCodeVerifier(
  verifier: unknown,
  storedChallenge: string,
  method = PKCE_METHOD,
): PkceCheck {
  if (method !== PKCE_METHOD) {
    return {
      ok: false,
      error: 'invalid_grant',
      description: 'code_challenge_method: only S256 is supported',
    };
  }
  if (verifier === undefined || verifier === null || verifier === '') {
    return { ok: false, error: 'invalid_request', description: 'code_verifier: is required' };
  }
  if (!isValidCodeVerifier(verifier)) {
    return {
      ok: false,
      error: 'invalid_request',
      description: 'code_verifier: must be 43-128 characters of A-Z a-z 0-9 - . _ ~',
    };
  }
  const expected = Buffer.from(storedChallenge, 'ascii');
  const actual = Buffer.from(s256Challenge(verifier), 'ascii');
  if (expected.length === actual.length && timingSafeEqual(expected, actual)) return { ok: true };
  return {
    ok: false,
    error: 'invalid_grant',
    description: 'code_verifier: does not match the code_challenge',
  };
}
