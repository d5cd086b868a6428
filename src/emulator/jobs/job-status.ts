/**
 * Pure mapping from a job's state to the spec's Status response (print-oauth-release.md, Job
 * status and Print job status codes): 2 unknown job, 1246 not yet received, 129 being
 * processed, 0 done, 3011 (or the connector's error code) failed. The status string is upper-case
 * flags joined by '|' with a trailing '|'; the connector's notes about a job that prints (options
 * changed or not applied) and the reason of a failed job follow the flags, one element per line
 * of its message. A job waiting
 * for its printer stays at 129 (a polling client keeps polling), adds the flag WAITING and says
 * why after it. No I/O.
 */
import { WAITING_PREFIX } from '../../protocol/connector-channel.js';
import type { JobState } from './job-repo.js';

/** Status codes of the field jobstatus. */
export const JOB_STATUS_CODE = {
  success: 0,
  invalidJob: 2,
  processing: 129,
  noStatusYet: 1246,
  restart: 3011,
  /** Cancelled jobs: the host OS's "operation cancelled" code. */
  cancelled: 1223,
} as const;

/** The Status response (spec: Job status). */
export interface JobStatus {
  jobpagesprinted: number;
  jobpagestotal: number;
  jobposition: number;
  jobstatus: number;
  jobstatusstring: string;
}

/** The answer for a job id the caller does not have. */
export const UNKNOWN_JOB_STATUS: JobStatus = Object.freeze({
  jobpagesprinted: 0,
  jobpagestotal: 0,
  jobposition: 0,
  jobstatus: JOB_STATUS_CODE.invalidJob,
  jobstatusstring: 'ERROR|',
});

const FLAGS: Record<JobState, string[]> = {
  pending: [],
  claimed: [],
  received: ['SPOOLING'],
  downloading: ['SPOOLING'],
  printing: ['PRINTING'],
  completed: ['PRINTED', 'COMPLETE'],
  failed: ['ERROR', 'RESTART'],
  cancelled: ['DELETED'],
};

/** Joins flags the way the spec shows them: `PRINTED|COMPLETE|`; no flags: ''. */
export function statusString(flags: readonly string[]): string {
  return flags.map((f) => `${f.toUpperCase()}|`).join('');
}

/** The jobstatus code of a state (`errorCode` replaces 3011 for failed jobs). */
export function statusCode(state: JobState, errorCode: number | null): number {
  switch (state) {
    case 'pending':
    case 'claimed':
      return JOB_STATUS_CODE.noStatusYet;
    case 'received':
    case 'downloading':
    case 'printing':
      return JOB_STATUS_CODE.processing;
    case 'completed':
      return JOB_STATUS_CODE.success;
    case 'failed':
      return errorCode !== null && errorCode !== 0 ? errorCode : JOB_STATUS_CODE.restart;
    case 'cancelled':
      return JOB_STATUS_CODE.cancelled;
  }
}

/** The full Status response of a job. `position` is its 1-based queue place (ignored when finished). */
export function jobStatus(
  job: {
    state: JobState;
    errorCode: number | null;
    pagesPrinted: number;
    pagesTotal: number;
    message?: string | null;
  },
  position: number,
): JobStatus {
  const finished = job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled';
  const waiting = !finished && (job.message?.startsWith(WAITING_PREFIX) ?? false);
  return {
    jobpagesprinted: job.pagesPrinted,
    jobpagestotal: job.pagesTotal,
    jobposition: finished ? 0 : position,
    jobstatus: statusCode(job.state, job.errorCode),
    jobstatusstring: waiting
      ? statusString([...FLAGS[job.state], 'WAITING']) +
        noteLines((job.message as string).slice(WAITING_PREFIX.length))
      : statusString(FLAGS[job.state]) + noteOf(job),
  };
}

/**
 * The connector's message after the flags, one element per line (`|` inside a line becomes `/`):
 * the notes of a job that prints, and the reason of a failed job (`ERROR|RESTART|<why>|`), so an
 * app sees why without the emulator's log.
 */
function noteOf(job: { state: JobState; message?: string | null }): string {
  if (!job.message || job.message.startsWith(WAITING_PREFIX)) return '';
  return noteLines(job.message);
}

/** Each non-empty line of `text` as one element of the status string. */
function noteLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => `${line.replace(/\|/g, '/')}|`)
    .join('');
}
