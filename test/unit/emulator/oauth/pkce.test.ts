import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/lib/errors.js';
import {
  isValidCodeVerifier,
  parseCodeChallenge,
  s256Challenge,
  verifyCodeVerifier,
} from '../../../../src/emulator/oauth/pkce.js';

// RFC 7636 Appendix B
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('code_verifier syntax', () => {
  it.each([
    ['a'.repeat(43), true],
    ['a'.repeat(128), true],
    ['a'.repeat(42), false],
    ['a'.repeat(129), false],
    [`${'A1-._~'.repeat(8)}xyz`, true],
    [`${'a'.repeat(42)}+`, false],
    [`${'a'.repeat(42)}/`, false],
    [`${'a'.repeat(42)}=`, false],
    [`${'a'.repeat(42)} `, false],
    [`${'a'.repeat(42)}é`, false],
    [`${'a'.repeat(42)}ａ`, false],
    ['', false],
    [RFC_VERIFIER, true],
  ])('%j -> %s', (verifier, valid) => {
    expect(isValidCodeVerifier(verifier)).toBe(valid);
  });
  it('refuses non-strings', () => {
    expect(isValidCodeVerifier(undefined)).toBe(false);
    expect(isValidCodeVerifier(42)).toBe(false);
  });
});

describe('S256', () => {
  it('matches the RFC 7636 example', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
  });
  it('verifies the right verifier', () => {
    expect(verifyCodeVerifier(RFC_VERIFIER, RFC_CHALLENGE)).toEqual({ ok: true });
  });
  it('refuses a different verifier as invalid_grant', () => {
    const result = verifyCodeVerifier(`${RFC_VERIFIER.slice(0, -1)}Y`, RFC_CHALLENGE);
    expect(result).toEqual({
      ok: false,
      error: 'invalid_grant',
      description: 'code_verifier: does not match the code_challenge',
    });
  });
  it('refuses the challenge itself sent as verifier (plain downgrade)', () => {
    expect(verifyCodeVerifier(RFC_CHALLENGE, RFC_CHALLENGE).ok).toBe(false);
  });
  it.each([[undefined], [''], [null]])('missing verifier %j is invalid_request', (verifier) => {
    expect(verifyCodeVerifier(verifier, RFC_CHALLENGE)).toMatchObject({
      ok: false,
      error: 'invalid_request',
      description: 'code_verifier: is required',
    });
  });
  it('malformed verifier is invalid_request naming the rule', () => {
    expect(verifyCodeVerifier('short', RFC_CHALLENGE)).toMatchObject({
      ok: false,
      error: 'invalid_request',
      description: expect.stringContaining('43-128 characters'),
    });
  });
  it('a stored plain method never verifies', () => {
    expect(verifyCodeVerifier(RFC_VERIFIER, RFC_VERIFIER, 'plain')).toMatchObject({ ok: false });
  });
});

describe('parseCodeChallenge', () => {
  it('accepts S256 with a 43-character challenge', () => {
    expect(parseCodeChallenge(RFC_CHALLENGE, 'S256')).toBe(RFC_CHALLENGE);
  });
  it.each([
    [RFC_CHALLENGE, 'plain', 'code_challenge_method', 'plain is not accepted'],
    [RFC_CHALLENGE, undefined, 'code_challenge_method', 'must be S256'],
    [RFC_CHALLENGE, 's256', 'code_challenge_method', 'must be S256'],
    [undefined, 'S256', 'code_challenge', 'is required'],
    ['', 'S256', 'code_challenge', 'is required'],
    [RFC_CHALLENGE.slice(1), 'S256', 'code_challenge', '43 base64url characters'],
    [`${RFC_CHALLENGE.slice(1)}=`, 'S256', 'code_challenge', '43 base64url characters'],
    [`${RFC_CHALLENGE.slice(1)}+`, 'S256', 'code_challenge', '43 base64url characters'],
  ])('%j / %j -> %s', (challenge, method, field, rule) => {
    let caught: unknown;
    try {
      parseCodeChallenge(challenge, method);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe(field);
    expect((caught as ValidationError).message).toContain(rule);
  });
});
