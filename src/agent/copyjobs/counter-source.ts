/**
 * Where a copy session's counts come from, as the session uses it: one read of the device's
 * counters. Implementations: SNMP Printer-MIB (snmp-counters.ts), IPP printer counters
 * (ipp-counters.ts) and the copy events an embedded device app posts (copy-events.ts).
 */
import type { CopySource } from '../../config/copy-jobs-schema.js';
import type { CounterSnapshot } from './copy-counting.js';

/** A device's counters; the owner calls close(). */
export interface CounterSource {
  readonly kind: CopySource;
  /** Whether released print jobs show in these counters (device counters: yes; the device app: no). */
  readonly includesReleased: boolean;
  /** Reads the counters now; throws when the device does not answer. */
  read(signal?: AbortSignal): Promise<CounterSnapshot>;
  /** Frees sockets and timers. */
  close(): Promise<void>;
}
