/**
 * Pure helpers of the pairing-code grant and the sign-in page: code generation and
 * normalization, the auth_url shape, and the `next` guard against open redirects.
 */
import { describe, expect, it } from 'vitest';
import { safeNext } from '../../../../src/emulator/oauth/authorize-routes.js';
import {
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
  newPairingCode,
  normalizePairingCode,
  pairingAuthUrl,
} from '../../../../src/emulator/oauth/pairing.js';

describe('newPairingCode', () => {
  it('makes codes of the alphabet without look-alikes, different each time', () => {
    const codes = new Set(Array.from({ length: 200 }, () => newPairingCode()));
    expect(codes.size).toBe(200);
    for (const code of codes) {
      expect(code).toHaveLength(PAIRING_CODE_LENGTH);
      expect([...code].every((ch) => PAIRING_ALPHABET.includes(ch))).toBe(true);
    }
    expect(PAIRING_ALPHABET).not.toMatch(/[01OIL]/);
  });
});

describe('normalizePairingCode', () => {
  it.each([
    ['ABCDEFGHJK', 'ABCDEFGHJK'],
    ['abcdefghjk', 'ABCDEFGHJK'],
    ['ABCDE-FGHJK', 'ABCDEFGHJK'],
    ['ABCDE FGHJK', 'ABCDEFGHJK'],
    [' abcde-fghjk ', 'ABCDEFGHJK'],
    ['ＡＢＣＤＥＦＧＨＪＫ', 'ABCDEFGHJK'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizePairingCode(input)).toBe(expected);
  });

  it.each([[''], ['ABC0EFGHJK'], ['ABCDE/FGHJ'], ['ABCDE%FGHJ'], ['<script>'], ['A'.repeat(65)]])(
    '%j is refused naming pairing_code',
    (input) => {
      expect(() => normalizePairingCode(input)).toThrow(/^pairing_code: /);
    },
  );
});

describe('pairingAuthUrl', () => {
  it('is the sign-in page whose next is the binding page of the code', () => {
    const url = new URL(pairingAuthUrl('http://127.0.0.1:9/', 'ABCDEFGHJK'));
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:9/oauth/login/');
    expect(url.searchParams.get('next')).toBe('/oauth/authorize/pairing/?pairing_code=ABCDEFGHJK');
  });
});

describe('safeNext', () => {
  it.each([
    ['/oauth/authorize/pairing/?pairing_code=X', '/oauth/authorize/pairing/?pairing_code=X'],
    [undefined, '/oauth/login/done/'],
    ['https://evil.example/', '/oauth/login/done/'],
    ['//evil.example/oauth/', '/oauth/login/done/'],
    ['/oauth//evil.example', '/oauth/login/done/'],
    ['/oauth/\\evil', '/oauth/login/done/'],
    ['/sfapi/Print', '/oauth/login/done/'],
    ['/oauth/ x', '/oauth/login/done/'],
  ])('%j -> %s', (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });
});
