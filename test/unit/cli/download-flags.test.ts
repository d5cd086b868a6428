import { describe, expect, it } from 'vitest';
import { downloadLimitsOf } from '../../../src/cli/download-flags.js';

describe('emulator --downloads-max, --downloads-max-per-org and --downloads-wait-ms', () => {
  it('give the download caps', () => {
    expect(
      downloadLimitsOf({ downloadsMax: '32', downloadsMaxPerOrg: '8', downloadsWaitMs: '10000' }),
    ).toEqual({
      maxActive: 32,
      maxActivePerTenant: 8,
      maxWaitMs: 10_000,
    });
    expect(downloadLimitsOf({ downloadsMax: '4', downloadsMaxPerOrg: '4', downloadsWaitMs: '0' })).toEqual({
      maxActive: 4,
      maxActivePerTenant: 4,
      maxWaitMs: 0,
    });
  });

  it.each([
    [
      { downloadsMax: '0', downloadsMaxPerOrg: '1', downloadsWaitMs: '0' },
      /^--downloads-max: expected a whole number from 1 to 10000, got "0"/,
    ],
    [
      { downloadsMax: '8', downloadsMaxPerOrg: 'x', downloadsWaitMs: '0' },
      /^--downloads-max-per-org: expected a whole number/,
    ],
    [
      { downloadsMax: '8', downloadsMaxPerOrg: '9', downloadsWaitMs: '0' },
      /^--downloads-max-per-org: must be at most --downloads-max \(8\), got 9/,
    ],
    [
      { downloadsMax: '8', downloadsMaxPerOrg: '2', downloadsWaitMs: '-1' },
      /^--downloads-wait-ms: expected a whole number from 0 to 600000/,
    ],
  ])('refuses %o naming the flag and its rule', (flags, message) => {
    expect(() => downloadLimitsOf(flags)).toThrow(message);
  });
});
