import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/lib/clock.js';
import { TooManyRequestsError } from '../../../../src/lib/errors.js';
import { hashToken, SecretHasher } from '../../../../src/emulator/store/secret-hash.js';

describe('SecretHasher', () => {
  const clock = new ManualClock();
  const hasher = new SecretHasher(clock);

  it('stores scrypt hashes with a fresh salt each time', async () => {
    const stored = await hasher.hash('demo-device');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await hasher.hash('demo-device')).not.toBe(stored);
  });

  it('accepts the right secret, again from the verification cache, and never a wrong one', async () => {
    const stored = await hasher.hash('demo-device');
    expect(await hasher.verify('demo-device', stored)).toBe(true);
    expect(await hasher.verify('demo-device', stored)).toBe(true);
    for (const wrong of ['demo-devicE', 'demo-device ', '', 'demo-dev'])
      expect(await hasher.verify(wrong, stored)).toBe(false);
  });

  it('does not carry a cached success over to another stored hash (a changed password)', async () => {
    const stored = await hasher.hash('demo-device');
    expect(await hasher.verify('demo-device', stored)).toBe(true);
    expect(await hasher.verify('demo-device', await hasher.hash('new-password'))).toBe(false);
  });

  it('refuses malformed stored hashes', async () => {
    for (const bad of [
      '',
      'plain',
      'bcrypt$1$2$3$4$5',
      'scrypt$16384$8$1$onlyfive',
      'scrypt$x$8$1$AA==$AA==',
    ]) {
      expect(await hasher.verify('x', bad)).toBe(false);
    }
  });

  it('hashes off the event loop: timers keep firing while a check runs', async () => {
    const stored = await hasher.hash('off-loop');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const checks = Array.from({ length: 4 }, (_, i) => hasher.verify(`wrong-${i}`, stored));
    expect(await Promise.all(checks)).toEqual([false, false, false, false]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it('remembers a success for ten minutes of the injected clock, then pays scrypt again', async () => {
    const local = new ManualClock();
    const counting = new SecretHasher(local);
    const stored = await counting.hash('remember-me');
    expect(await counting.verify('remember-me', stored)).toBe(true);
    expect(counting.stats()).toEqual({ scryptRuns: 2, cacheHits: 0 });
    local.advance(9 * 60_000);
    expect(await counting.verify('remember-me', stored)).toBe(true);
    expect(counting.stats()).toEqual({ scryptRuns: 2, cacheHits: 1 });
    local.advance(2 * 60_000);
    expect(await counting.verify('remember-me', stored)).toBe(true);
    expect(counting.stats()).toEqual({ scryptRuns: 3, cacheHits: 1 });
  });

  it('bounds its queue: checks beyond it are refused with 429 material, the queued ones finish', async () => {
    const small = new SecretHasher(clock, { concurrency: 1, queueLimit: 2 });
    const stored = await small.hash('q');
    const accepted = [small.verify('a', stored), small.verify('b', stored), small.verify('c', stored)];
    const refused = await small.verify('d', stored).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).message).toBe(
      'too many password checks are waiting; try again shortly',
    );
    expect((refused as TooManyRequestsError).retryAfterMs).toBe(1000);
    expect(await Promise.all(accepted)).toEqual([false, false, false]);
    expect(await small.verify('q', stored)).toBe(true);
  });

  it('spends a full check on an unknown account (verifyUnknown is always false)', async () => {
    const local = new SecretHasher(new ManualClock());
    expect(await local.verifyUnknown('anything')).toBe(false);
    expect(local.stats().scryptRuns).toBe(2);
  });

  it('hashes tokens with SHA-256', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
