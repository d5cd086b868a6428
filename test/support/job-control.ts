/**
 * The JobControl of a job a test runs on its own: never stopped, never woken, never cancelled.
 */
import type { JobControl } from '../../src/agent/jobs/job-runner-types.js';

export function quietControl(): JobControl {
  const signal = new AbortController().signal;
  return { stop: signal, wake: signal, cancelled: () => false };
}
