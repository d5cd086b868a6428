/**
 * The first contact with the cloud at start-up. Under a service manager the agent does not die
 * when the cloud is unreachable (a site's network often comes up after the agent): it retries
 * with backoff, tells the manager it is up and why it waits (`READY=1` with `STATUS=`), and
 * keeps retrying until it gets through or is stopped. Errors that retrying cannot fix (a bad
 * client secret, a refused refresh token) still end the start at once.
 */
import { sleep } from '../../lib/abort.js';
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import { errorMessage, isRetryable } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { ServiceNotifier } from '../../service/service-notifier.js';

/** How a start-up contact is retried. */
export interface StartupRetryOptions {
  /** False: the first failure ends the start (tests, one-shot runs). */
  retry: boolean;
  backoff: BackoffPolicy;
  notifier: ServiceNotifier;
  logger: Logger;
  signal?: AbortSignal;
}

/** The status line shown while the agent waits for the cloud. Pure. */
export function waitingStatus(reason: string, attempt: number, delayMs: number): string {
  const seconds = Math.max(1, Math.round(delayMs / 1000));
  return `waiting for the cloud (attempt ${attempt}): ${reason}; next try in ${seconds} s`;
}

/**
 * Runs `contact` until it succeeds; retryable failures are retried when `retry` is on. The first
 * retryable failure reports the service ready, so the manager's start does not time out.
 */
export async function retryUntilReachable<T>(
  contact: (signal?: AbortSignal) => Promise<T>,
  options: StartupRetryOptions,
): Promise<T> {
  const { notifier, logger, signal } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      return await contact(signal);
    } catch (error) {
      if (!options.retry || !isRetryable(error) || signal?.aborted) throw error;
      const delayMs = Math.max(error.retryAfterMs ?? 0, backoffDelay(options.backoff, attempt));
      const status = waitingStatus(errorMessage(error), attempt + 1, delayMs);
      if (attempt === 0) notifier.ready(status);
      else notifier.status(status);
      logger.warn(
        { error: errorMessage(error), attempt: attempt + 1, delayMs },
        'cloud unreachable at start-up; retrying',
      );
      await sleep(delayMs, signal);
    }
  }
}
