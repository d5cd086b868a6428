/**
 * Job-list lines of GetJobList ([Jobs] section): colon-separated fields in the spec's order —
 * file name, size, created, modified (epoch seconds), attributes, job id, display name, driver
 * name. Names hold no colon; display and driver names are written double-quoted (UTF-8) and read
 * with or without quotes. Pure.
 */
import { ValidationError } from '../lib/errors.js';

/** One held job as the device sees it. */
export interface TpfmJob {
  /** Job file name: the handle for PrintJob/DeleteJob/SetJobProperties. */
  fileName: string;
  size: number;
  /** Seconds since 1970-01-01 UTC. */
  created: number;
  modified: number;
  /** File attribute bits (the emulator sets 1 for a job put on hold). */
  attributes: number;
  /** Alphanumeric id (UUID form at this service). */
  jobId: string;
  /** May be empty: then the file name is shown. */
  displayName: string;
  driverName: string;
}

/** File attribute bit that marks a job put on hold (PrintRelay's choice; the spec does not name bits). */
export const TPFM_ATTR_ON_HOLD = 1;

const numericFields = ['size', 'created', 'modified', 'attributes'] as const;

function checkName(field: string, value: string): void {
  if (/[:\r\n"]/.test(value))
    throw new ValidationError(field, 'must not contain a colon, quote or line break');
}

/** Writes one job-list line (without line end). Throws ValidationError naming the bad field. */
export function formatJobListLine(job: TpfmJob): string {
  if (!job.fileName) throw new ValidationError('fileName', 'must not be empty');
  checkName('fileName', job.fileName);
  checkName('displayName', job.displayName);
  checkName('driverName', job.driverName);
  if (!/^[A-Za-z0-9-]+$/.test(job.jobId))
    throw new ValidationError('jobId', 'must be alphanumeric (UUID form)');
  for (const field of numericFields) {
    if (!Number.isSafeInteger(job[field]) || job[field] < 0) {
      throw new ValidationError(field, 'must be a non-negative integer');
    }
  }
  return [
    job.fileName,
    job.size,
    job.created,
    job.modified,
    job.attributes,
    job.jobId,
    `"${job.displayName}"`,
    `"${job.driverName}"`,
  ].join(':');
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

function parseCount(field: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new ValidationError(field, `must be a non-negative integer, got "${value}"`);
  return Number(value);
}

/** Parses one job-list line. Throws ValidationError naming the field when it is malformed. */
export function parseJobListLine(line: string): TpfmJob {
  const parts = line.trim().split(':');
  if (parts.length !== 8) {
    throw new ValidationError('jobListLine', `must have 8 colon-separated fields, got ${parts.length}`);
  }
  const [fileName, size, created, modified, attributes, jobId, displayName, driverName] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!fileName) throw new ValidationError('fileName', 'must not be empty');
  if (!/^[A-Za-z0-9-]+$/.test(jobId)) throw new ValidationError('jobId', 'must be alphanumeric (UUID form)');
  return {
    fileName,
    size: parseCount('size', size),
    created: parseCount('created', created),
    modified: parseCount('modified', modified),
    attributes: parseCount('attributes', attributes),
    jobId,
    displayName: unquote(displayName),
    driverName: unquote(driverName),
  };
}

/** The name to show people: the display name, or the file name when it is empty. */
export function jobTitle(job: TpfmJob): string {
  return job.displayName || job.fileName;
}
