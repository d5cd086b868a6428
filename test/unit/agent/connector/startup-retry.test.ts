import { describe, expect, it } from 'vitest';
import { retryUntilReachable, waitingStatus } from '../../../../src/agent/connector/startup-retry.js';
import type { ServiceNotifier } from '../../../../src/service/service-notifier.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';

function recorder(): ServiceNotifier & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    ready: (s) => calls.push(`ready:${s}`),
    status: (s) => calls.push(`status:${s}`),
    stopping: (s) => calls.push(`stopping:${s}`),
    watchdog: () => calls.push('watchdog'),
    watchdogIntervalMs: undefined,
  };
}

const backoff = { initialMs: 1, maxMs: 1, factor: 2, jitter: 0 };

/** A contact that fails `times` times with `error`, then answers 'ok'. */
function failing(times: number, error: Error) {
  let calls = 0;
  return async () => {
    calls++;
    if (calls <= times) throw error;
    return `ok after ${calls}`;
  };
}

describe('retryUntilReachable', () => {
  it('retries retryable failures: ready once with the reason, then status lines', async () => {
    const notifier = recorder();
    const contact = failing(3, new RetryableError('network', 'ECONNREFUSED'));
    const result = await retryUntilReachable(contact, {
      retry: true,
      backoff,
      notifier,
      logger: silentLogger(),
    });
    expect(result).toBe('ok after 4');
    expect(notifier.calls).toEqual([
      'ready:waiting for the cloud (attempt 1): ECONNREFUSED; next try in 1 s',
      'status:waiting for the cloud (attempt 2): ECONNREFUSED; next try in 1 s',
      'status:waiting for the cloud (attempt 3): ECONNREFUSED; next try in 1 s',
    ]);
  });

  it('fails at once on an error retrying cannot fix, or when retrying is off', async () => {
    const notifier = recorder();
    const options = { backoff, notifier, logger: silentLogger() };
    await expect(
      retryUntilReachable(failing(1, new PermanentError('refused', 'bad secret')), {
        ...options,
        retry: true,
      }),
    ).rejects.toThrow('bad secret');
    await expect(
      retryUntilReachable(failing(1, new RetryableError('network', 'down')), { ...options, retry: false }),
    ).rejects.toThrow('down');
    expect(notifier.calls).toEqual([]);
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const notifier = recorder();
    notifier.ready = () => controller.abort(new Error('stopped during start-up'));
    const contact = failing(10, new RetryableError('network', 'down'));
    const slow = { initialMs: 60_000, maxMs: 60_000, factor: 1, jitter: 0 };
    const options = {
      retry: true,
      backoff: slow,
      notifier,
      logger: silentLogger(),
      signal: controller.signal,
    };
    await expect(retryUntilReachable(contact, options)).rejects.toThrow('stopped during start-up');
  });

  it('says how long the next wait is, at least 1 s', () => {
    expect(waitingStatus('x', 3, 12_400)).toBe('waiting for the cloud (attempt 3): x; next try in 12 s');
    expect(waitingStatus('x', 1, 10)).toBe('waiting for the cloud (attempt 1): x; next try in 1 s');
  });
});
