/**
 * Tells the cloud why a job waits: a `waiting` event whose message reads
 * `waiting: <reason>, retry in <n> s` (printer offline, busy, answering garbage, spool folder
 * full). Throttled per job: a new event only when the reason changes or `repeatMs` passed since
 * the last one; a busy printer only counts once it has stayed busy for `busyAfterMs` (printers
 * are briefly busy between jobs all the time). State is in memory; a restart reports afresh.
 */
import type { Clock } from '../../lib/clock.js';
import type { RetryableError } from '../../lib/errors.js';
import { WAITING_PREFIX } from '../../protocol/connector-channel.js';
import { statusName } from '../../printing/ipp/ipp-constants.js';
import type { NewJobEvent } from '../../store/outbox.js';

const OFFLINE_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'no answer',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'name not found',
  EAI_AGAIN: 'name not found',
};

/** Why a job waits, in words, for a retryable error of the printer or the spool; undefined for others. Pure. */
export function waitingReason(error: RetryableError): string | undefined {
  const detail = error.cause as { code?: string } | undefined;
  switch (error.code) {
    case 'printer_unreachable': {
      const code = detail?.code ?? '';
      return `printer offline (${OFFLINE_CAUSES[code] ?? (code || error.message)})`;
    }
    case 'printer_busy':
    case 'printer_error': {
      const status = (error as { statusCode?: number }).statusCode;
      const what = error.code === 'printer_busy' ? 'printer busy' : 'printer error';
      return status === undefined ? `${what} (${error.message})` : `${what} (${statusName(status)})`;
    }
    case 'printer_bad_response':
      return `printer answered garbage (${error.message.replace(/^.*bad response from printer: /, '')})`;
    case 'spool_write':
      return `spool folder full or not writable (${error.message})`;
    default:
      return undefined;
  }
}

/** The message of a waiting event. Pure. */
export function waitingMessage(reason: string, retryInMs: number): string {
  return `${WAITING_PREFIX}${reason}, retry in ${Math.max(1, Math.ceil(retryInMs / 1000))} s`;
}

interface Reported {
  reason: string;
  firstSeenAt: number;
  reportedAt: number | undefined;
}

/** Options of a WaitingReporter. */
export interface WaitingReporterOptions {
  emit: (jobId: string, event: NewJobEvent) => void;
  clock: Clock;
  /** A reason that stays is reported again after this long (default 60 s). */
  repeatMs?: number;
  /** A busy printer is reported once it has been busy this long (default 5 s). */
  busyAfterMs?: number;
}

/** Emits throttled `waiting` events per job. */
export class WaitingReporter {
  private readonly jobs = new Map<string, Reported>();

  constructor(private readonly options: WaitingReporterOptions) {}

  /** The job waits `retryInMs` because of `reason`; emits when the throttle allows. */
  report(jobId: string, reason: string, retryInMs: number): void {
    const now = this.options.clock.now();
    const last = this.jobs.get(jobId);
    const entry: Reported =
      last && last.reason === reason ? last : { reason, firstSeenAt: now, reportedAt: undefined };
    this.jobs.set(jobId, entry);
    const busyFor = now - entry.firstSeenAt;
    if (reason.startsWith('printer busy') && busyFor < (this.options.busyAfterMs ?? 5_000)) return;
    if (entry.reportedAt !== undefined && now - entry.reportedAt < (this.options.repeatMs ?? 60_000)) return;
    entry.reportedAt = now;
    this.options.emit(jobId, { kind: 'waiting', message: waitingMessage(reason, retryInMs) });
  }

  /** The job stopped waiting (submitted, or finished): the next wait is reported afresh. */
  clear(jobId: string): void {
    this.jobs.delete(jobId);
  }
}
