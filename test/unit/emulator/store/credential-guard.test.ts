import { describe, expect, it } from 'vitest';
import { CredentialGuard, type CredentialLimits } from '../../../../src/emulator/store/credential-guard.js';
import { SecretHasher } from '../../../../src/emulator/store/secret-hash.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { TooManyRequestsError } from '../../../../src/lib/errors.js';

const limits: CredentialLimits = {
  perSubject: { maxFailures: 2, windowMs: 60_000, lockMs: 60_000, maxKeys: 100 },
  perSource: { maxFailures: 3, windowMs: 60_000, lockMs: 60_000, maxKeys: 100 },
  failureDelayMs: 750,
};

function guardWithWaits() {
  const clock = new ManualClock();
  const hasher = new SecretHasher(clock);
  const waits: number[] = [];
  const guard = new CredentialGuard(hasher, clock, limits, async (ms) => {
    waits.push(ms);
  });
  return { guard, hasher, waits };
}

describe('CredentialGuard', () => {
  it('delays every failed and every refused answer by failureDelayMs, never a success', async () => {
    const { guard, hasher, waits } = guardWithWaits();
    const stored = await hasher.hash('right');
    const attempt = { subject: 'client:a', source: '10.0.0.1', stored };
    expect(await guard.verify({ ...attempt, secret: 'right' })).toBe(true);
    expect(waits).toEqual([]);
    expect(await guard.verify({ ...attempt, secret: 'wrong-1' })).toBe(false);
    expect(await guard.verify({ ...attempt, secret: 'wrong-2' })).toBe(false);
    expect(waits).toEqual([750, 750]);
    const refused = await guard.verify({ ...attempt, secret: 'right' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(waits).toEqual([750, 750, 750]);
  });

  it('counts parallel attempts before their outcome: only maxFailures scrypt runs start', async () => {
    const { guard, hasher } = guardWithWaits();
    const stored = await hasher.hash('right');
    const before = hasher.stats().scryptRuns;
    const attempts = Array.from({ length: 6 }, (_, i) =>
      guard
        .verify({ subject: 'client:b', source: `10.0.0.${i}`, stored, secret: `wrong-${i}` })
        .catch((e: unknown) => e),
    );
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r === false)).toHaveLength(2);
    expect(results.filter((r) => r instanceof TooManyRequestsError)).toHaveLength(4);
    expect(hasher.stats().scryptRuns - before).toBe(2);
  });

  it('an unknown subject costs the same scrypt and counts against the source', async () => {
    const { guard, hasher } = guardWithWaits();
    const before = hasher.stats().scryptRuns;
    for (let i = 0; i < 3; i++) {
      expect(
        await guard.verify({
          subject: `client:none-${i}`,
          source: '10.0.0.9',
          stored: undefined,
          secret: 'x',
        }),
      ).toBe(false);
    }
    expect(hasher.stats().scryptRuns - before).toBeGreaterThanOrEqual(3);
    const refused = await guard
      .verify({ subject: 'client:other', source: '10.0.0.9', stored: undefined, secret: 'x' })
      .catch((e: unknown) => e);
    expect((refused as TooManyRequestsError).message).toBe(
      'too many failed sign-in attempts from this address; try again in 60 s',
    );
  });
});
