import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { TokenVerificationError } from '../../../../src/emulator/oauth/oauth-errors.js';
import { SigningKeyService } from '../../../../src/emulator/oauth/signing-key-service.js';
import { VerifiedTokenCache } from '../../../../src/emulator/oauth/verified-token-cache.js';
import { type EmulatorDatabase, openEmulatorDatabase } from '../../../../src/emulator/store/database.js';
import { SigningKeyRepo } from '../../../../src/emulator/oauth/signing-key-repo.js';

const ISSUER = 'http://emulator.test';
const T0 = Date.UTC(2026, 0, 1);

describe('VerifiedTokenCache', () => {
  it('knows nothing of a token it was not told about', () => {
    expect(new VerifiedTokenCache().check('a.b.c', ISSUER, T0)).toBeUndefined();
  });

  it('answers a remembered token with its claims while it is valid', () => {
    const cache = new VerifiedTokenCache();
    const payload = { iss: ISSUER, sub: 'u1', exp: T0 / 1000 + 60 };
    cache.remember('t', payload);
    expect(cache.check('t', ISSUER, T0)).toEqual({ ok: true, payload });
  });

  it('refuses a remembered token once exp is reached, and forgets it', () => {
    const cache = new VerifiedTokenCache();
    cache.remember('t', { iss: ISSUER, exp: T0 / 1000 + 60 });
    expect(cache.check('t', ISSUER, T0 + 60_000)).toEqual({ ok: false, problem: 'expired' });
    expect(cache.size).toBe(0);
  });

  it('refuses a remembered token before nbf and for another issuer', () => {
    const cache = new VerifiedTokenCache();
    cache.remember('t', { iss: ISSUER, nbf: T0 / 1000 + 10, exp: T0 / 1000 + 60 });
    expect(cache.check('t', ISSUER, T0)).toEqual({ ok: false, problem: 'not_yet_valid' });
    expect(cache.check('t', 'http://other.test', T0 + 20_000)).toEqual({
      ok: false,
      problem: 'wrong_issuer',
    });
  });

  it('drops the oldest entry when full', () => {
    const cache = new VerifiedTokenCache(2);
    for (const token of ['a', 'b', 'c']) cache.remember(token, { iss: ISSUER });
    expect(cache.size).toBe(2);
    expect(cache.check('a', ISSUER, T0)).toBeUndefined();
    expect(cache.check('c', ISSUER, T0)?.ok).toBe(true);
  });
});

describe('SigningKeyService with remembered tokens', () => {
  let db: EmulatorDatabase | undefined;
  afterEach(() => db?.close());

  async function service(clock: ManualClock) {
    db = openEmulatorDatabase(':memory:');
    const keys = new SigningKeyService(
      new SigningKeyRepo(db),
      clock,
      silentLogger(),
      mkdtempSync(join(tmpdir(), 'signing-keys-')),
    );
    await keys.start();
    return keys;
  }

  it('gives the same claims on the second call and refuses the token after it expires', async () => {
    const clock = new ManualClock(T0);
    const keys = await service(clock);
    const now = Math.floor(T0 / 1000);
    const token = await keys.sign({ iss: ISSUER, sub: 'u1', iat: now, exp: now + 3600 });
    const first = await keys.verify(token, ISSUER);
    expect(await keys.verify(token, ISSUER)).toEqual(first);
    expect(Object.isFrozen(first)).toBe(true);
    await expect(keys.verify(token, 'http://other.test')).rejects.toThrow(TokenVerificationError);
    clock.advance(3600_000);
    await expect(keys.verify(token, ISSUER)).rejects.toThrow('the token expired');
  });

  it('never remembers a token with a bad signature', async () => {
    const clock = new ManualClock(T0);
    const keys = await service(clock);
    const now = Math.floor(T0 / 1000);
    const good = await keys.sign({ iss: ISSUER, sub: 'u1', exp: now + 3600 });
    const [header] = good.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'admin', exp: now + 3600 })).toString(
      'base64url',
    );
    const forged = `${header}.${forgedBody}.${good.split('.')[2]}`;
    await expect(keys.verify(forged, ISSUER)).rejects.toThrow('the token is invalid');
    await expect(keys.verify(forged, ISSUER)).rejects.toThrow('the token is invalid');
    const otherKey = await new SignJWT({ iss: ISSUER, sub: 'u1', exp: now + 3600 })
      .setProtectedHeader({ alg: 'HS256', kid: 'unknown' })
      .sign(new Uint8Array(32));
    await expect(keys.verify(otherKey, ISSUER)).rejects.toThrow('not signed by this service');
  });
});
