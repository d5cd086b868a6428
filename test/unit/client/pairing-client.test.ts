import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLL_INTERVAL_MS,
  pairingPollStep,
  SLOW_DOWN_STEP_MS,
} from '../../../src/client/pairing-client.js';

describe('pairingPollStep (RFC 8628 polling rules)', () => {
  const cases: {
    name: string;
    interval: number;
    error: string;
    description?: string;
    wait?: number;
    fail?: RegExp;
  }[] = [
    { name: 'pending keeps the interval', interval: 5000, error: 'authorization_pending', wait: 5000 },
    { name: 'pending at a custom interval', interval: 1200, error: 'authorization_pending', wait: 1200 },
    { name: 'slow_down adds five seconds', interval: 5000, error: 'slow_down', wait: 10_000 },
    { name: 'slow_down again adds five more', interval: 10_000, error: 'slow_down', wait: 15_000 },
    { name: 'expired code', interval: 5000, error: 'expired_token', fail: /expired.*printrelay agent pair/ },
    { name: 'denied at sign-in', interval: 5000, error: 'access_denied', fail: /refused at sign-in/ },
    {
      name: 'unknown or used code',
      interval: 5000,
      error: 'invalid_grant',
      description: 'pairing_code: already used',
      fail: /unknown or already used \(invalid_grant: pairing_code: already used\)/,
    },
    {
      name: 'client may not pair',
      interval: 5000,
      error: 'unauthorized_client',
      description: 'the client may not use grant_type=pairing_code',
      fail: /refused the pairing: unauthorized_client: the client may not use/,
    },
    {
      name: 'invalid scope without description',
      interval: 5000,
      error: 'invalid_scope',
      fail: /: invalid_scope$/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const step = pairingPollStep(c.interval, c.error, c.description ?? '');
      if (c.wait !== undefined) {
        expect(step).toEqual({ action: 'wait', intervalMs: c.wait });
      } else {
        expect(step.action).toBe('fail');
        expect(step.action === 'fail' && step.message).toMatch(c.fail!);
      }
    });
  }

  it('uses the RFC defaults', () => {
    expect(DEFAULT_POLL_INTERVAL_MS).toBe(5000);
    expect(SLOW_DOWN_STEP_MS).toBe(5000);
  });
});
