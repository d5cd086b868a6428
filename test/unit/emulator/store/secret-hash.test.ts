import { describe, expect, it } from 'vitest';
import { hashSecret, hashToken, verifySecret } from '../../../../src/emulator/store/secret-hash.js';

describe('secret hashing', () => {
  const stored = hashSecret('demo-device');

  it('stores scrypt hashes with a fresh salt each time', () => {
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(hashSecret('demo-device')).not.toBe(stored);
  });

  it('accepts the right secret, again from the verification cache, and never a wrong one', () => {
    expect(verifySecret('demo-device', stored)).toBe(true);
    expect(verifySecret('demo-device', stored)).toBe(true);
    for (const wrong of ['demo-devicE', 'demo-device ', '', 'demo-dev'])
      expect(verifySecret(wrong, stored)).toBe(false);
  });

  it('does not carry a cached success over to another stored hash (a changed password)', () => {
    expect(verifySecret('demo-device', stored)).toBe(true);
    expect(verifySecret('demo-device', hashSecret('new-password'))).toBe(false);
  });

  it('refuses malformed stored hashes', () => {
    for (const bad of ['', 'plain', 'bcrypt$1$2$3$4$5', 'scrypt$16384$8$1$onlyfive']) {
      expect(verifySecret('x', bad)).toBe(false);
    }
  });

  it('hashes tokens with SHA-256', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
