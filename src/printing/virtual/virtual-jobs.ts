/**
 * The virtual printer's job history: job records, their state moves (pending -> processing ->
 * completed, or cancelled/aborted) and their IPP job attributes for Get-Job-Attributes and
 * Get-Jobs. In memory, bounded (oldest finished jobs forgotten first). Nothing to clean up.
 */
import type { IppAttribute } from '../ipp/ipp-codec.js';
import { attr } from '../ipp/ipp-attributes.js';
import { JOB_STATE, TAG } from '../ipp/ipp-constants.js';

/** One job the virtual printer has seen. */
export interface VirtualJob {
  id: number;
  name: string;
  user: string;
  format: string;
  /** IPP job-state enum (3 pending ... 9 completed). */
  state: number;
  reasons: string[];
  /** Seconds of printer up-time at creation / processing / completion. */
  createdAt: number;
  processingAt?: number;
  completedAt?: number;
  /** Where the document is written. */
  path: string;
  bytes: number;
  /** PDF page count when known. */
  pages?: number;
  /** IPP document-name of the Print-Job (the original file name), when sent. */
  documentName?: string;
  /** The job template attributes as submitted. */
  template: IppAttribute[];
}

const FINAL = new Set<number>([JOB_STATE.cancelled, JOB_STATE.aborted, JOB_STATE.completed]);

/** True when the job will not change any more. */
export function isFinished(job: VirtualJob): boolean {
  return FINAL.has(job.state);
}

/** The job history, newest id highest. */
export class VirtualJobTable {
  private readonly jobs = new Map<number, VirtualJob>();
  private nextId = 1;

  constructor(private readonly limit = 1000) {}

  /** Allocates the next job id. */
  allocateId(): number {
    return this.nextId++;
  }

  /** Records a new job and forgets the oldest finished ones beyond the limit. */
  add(job: VirtualJob): void {
    this.jobs.set(job.id, job);
    for (const old of this.jobs.values()) {
      if (this.jobs.size <= this.limit) break;
      if (isFinished(old)) this.jobs.delete(old.id);
    }
  }

  get(id: number): VirtualJob | undefined {
    return this.jobs.get(id);
  }

  /** Jobs by which-jobs, newest first. */
  list(which: string): VirtualJob[] {
    const all = [...this.jobs.values()].reverse();
    if (which === 'all') return all;
    if (which === 'completed') return all.filter(isFinished);
    return all.filter((j) => !isFinished(j));
  }

  /** Jobs not finished yet. */
  activeCount(): number {
    return this.list('not-completed').length;
  }
}

/** The job's attributes as Get-Job-Attributes reports them. */
export function jobAttributes(job: VirtualJob, printerUri: string, upTime: number): IppAttribute[] {
  const list: IppAttribute[] = [
    attr(TAG.INTEGER, 'job-id', job.id),
    attr(TAG.URI, 'job-uri', `${printerUri}/${job.id}`),
    attr(TAG.URI, 'job-printer-uri', printerUri),
    attr(TAG.NAME, 'job-name', job.name),
    attr(TAG.NAME, 'job-originating-user-name', job.user),
    attr(TAG.ENUM, 'job-state', job.state),
    attr(TAG.KEYWORD, 'job-state-reasons', job.reasons),
    attr(TAG.MIME_TYPE, 'document-format', job.format),
    attr(TAG.INTEGER, 'job-k-octets', Math.ceil(job.bytes / 1024)),
    attr(TAG.INTEGER, 'job-printer-up-time', upTime),
    attr(TAG.INTEGER, 'time-at-creation', job.createdAt),
    timeAttr('time-at-processing', job.processingAt),
    timeAttr('time-at-completed', job.completedAt),
  ];
  if (job.pages !== undefined) {
    const copies = copiesOf(job);
    const pages = selectedPages(job);
    list.push(attr(TAG.INTEGER, 'job-impressions', pages * copies));
    list.push(
      attr(TAG.INTEGER, 'job-impressions-completed', job.state === JOB_STATE.completed ? pages * copies : 0),
    );
    list.push(
      attr(TAG.INTEGER, 'job-media-sheets-completed', job.state === JOB_STATE.completed ? pages * copies : 0),
    );
  }
  return [...list, ...job.template.filter((t) => !list.some((l) => l.name === t.name))];
}

function timeAttr(name: string, value: number | undefined): IppAttribute {
  return value === undefined
    ? attr(TAG.NO_VALUE, name, { outOfBand: TAG.NO_VALUE })
    : attr(TAG.INTEGER, name, value);
}

/** The document's pages that page-ranges selects (each page once, within the document). */
function selectedPages(job: VirtualJob): number {
  const total = job.pages ?? 0;
  const ranges = job.template.find((t) => t.name === 'page-ranges')?.values as
    | { lower: number; upper: number }[]
    | undefined;
  if (!ranges || ranges.length === 0) return total;
  const chosen = new Set<number>();
  for (const { lower, upper } of ranges)
    for (let page = Math.max(1, lower); page <= Math.min(upper, total); page++) chosen.add(page);
  return chosen.size;
}

function copiesOf(job: VirtualJob): number {
  const copies = job.template.find((t) => t.name === 'copies')?.values[0];
  return typeof copies === 'number' && copies > 0 ? copies : 1;
}

/** Keeps only the requested attributes ('all' or absent: everything). */
export function filterJobAttributes(list: IppAttribute[], requested: string[] | undefined): IppAttribute[] {
  if (!requested || requested.includes('all') || requested.includes('job-description')) return list;
  return list.filter((a) => requested.includes(a.name));
}

/** A job name safe as a file name part: [A-Za-z0-9._-] only, at most 64 characters. */
export function sanitizeJobName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 64);
  return cleaned || 'job';
}

/** The file extension for a document format. */
export function extensionFor(format: string): string {
  const map: Record<string, string> = {
    'application/pdf': 'pdf',
    'text/plain': 'txt',
    'image/jpeg': 'jpg',
    'image/png': 'png',
  };
  return map[format] ?? 'bin';
}

/**
 * The name of a printed document: `<printer job id>-<job-name>[-<document-name>].<ext>`, so the
 * agent's job-name (`printrelay-<cloud job id>`) and the app's file name both show. Pure.
 */
export function printedFileName(
  id: number,
  job: { name: string; format: string; documentName?: string | undefined },
): string {
  const extension = extensionFor(job.format);
  const document = job.documentName?.replace(new RegExp(`\\.${extension}$`, 'i'), '');
  const suffix = document ? `-${sanitizeJobName(document)}` : '';
  return `${id}-${sanitizeJobName(job.name)}${suffix}.${extension}`;
}

/**
 * Counts the pages of a streamed plain-text document as a printer lays it out: a form feed starts
 * a page, a page holds 66 lines, and any document is at least one page. Keeps only counts.
 */
export class TextPageCounter {
  private pages = 0;
  private lines = 0;
  private partial = false;

  push(chunk: Buffer): void {
    for (const byte of chunk) {
      if (byte === 0x0c) this.endPage();
      else if (byte === 0x0a) {
        this.lines++;
        this.partial = false;
      } else if (byte !== 0x0d) this.partial = true;
    }
  }

  /** Total pages; at least one for any document. */
  finish(): number {
    this.endPage();
    return this.pages;
  }

  private endPage(): void {
    const lines = this.lines + (this.partial ? 1 : 0);
    this.pages += Math.max(1, Math.ceil(lines / 66));
    this.lines = 0;
    this.partial = false;
  }
}
