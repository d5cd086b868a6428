/**
 * Jobs and job events tables: the print jobs routed to connectors, their state and progress,
 * and the events the connector reported (kept for idempotency by event_id). Borrowing the
 * database handle; the owner of the handle closes it.
 */
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';
import { type JobFile, type JobFileRow, jobFileOf, jobFileParams } from './job-file.js';

/** pending: waiting for the connector; claimed: a connector took it; then as the events say. */
export type JobState =
  | 'pending'
  | 'claimed'
  | 'received'
  | 'downloading'
  | 'printing'
  | 'completed'
  | 'failed'
  | 'cancelled';

/** States a job never leaves. */
export const FINAL_JOB_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled'];

/** Every other state; the compiler checks that the two lists cover JobState. */
export const UNFINISHED_JOB_STATES = ['pending', 'claimed', 'received', 'downloading', 'printing'] as const;
type Uncovered = Exclude<
  JobState,
  (typeof UNFINISHED_JOB_STATES)[number] | 'completed' | 'failed' | 'cancelled'
>;
const everyStateCovered: [Uncovered] extends [never] ? true : never = true;
void everyStateCovered;
const UNFINISHED_SQL = UNFINISHED_JOB_STATES.map((state) => `'${state}'`).join(',');

/** A stored job. */
export interface JobRecord {
  id: string;
  organizationId: string;
  userId: string;
  printerId: string;
  state: JobState;
  file: JobFile & { name: string };
  ticket: PrintTicket;
  deleteAfterPrint: boolean;
  fileDeleted: boolean;
  claimedBy: string | null;
  pagesPrinted: number;
  pagesTotal: number;
  printerJobId: string | null;
  errorCode: number | null;
  message: string | null;
  lastSeq: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** The progress columns an applied event changes. */
export type JobProgress = Pick<
  JobRecord,
  | 'state'
  | 'pagesPrinted'
  | 'pagesTotal'
  | 'printerJobId'
  | 'errorCode'
  | 'message'
  | 'lastSeq'
  | 'finishedAt'
>;

interface JobRow extends JobFileRow {
  id: string;
  organization_id: string;
  user_id: string;
  printer_id: string;
  state: string;
  file_name: string;
  ticket_json: string;
  delete_after_print: number;
  file_deleted: number;
  claimed_by: string | null;
  pages_printed: number;
  pages_total: number;
  printer_job_id: string | null;
  error_code: number | null;
  message: string | null;
  last_seq: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

function toRecord(r: JobRow): JobRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    userId: r.user_id,
    printerId: r.printer_id,
    state: r.state as JobState,
    file: { ...jobFileOf(r), name: r.file_name },
    ticket: JSON.parse(r.ticket_json) as PrintTicket,
    deleteAfterPrint: r.delete_after_print === 1,
    fileDeleted: r.file_deleted === 1,
    claimedBy: r.claimed_by,
    pagesPrinted: r.pages_printed,
    pagesTotal: r.pages_total,
    printerJobId: r.printer_job_id,
    errorCode: r.error_code,
    message: r.message,
    lastSeq: r.last_seq,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

/** Reads and writes jobs and their events. */
export class JobRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts a pending job. */
  insert(job: Omit<JobRecord, 'state' | 'fileDeleted' | 'claimedBy' | keyof JobProgressDefaults>): void {
    this.db
      .prepare(
        `INSERT INTO jobs (id, organization_id, user_id, printer_id, state, file_path, file_size, file_sha256,
           file_extension, content_type, file_name, ticket_json, delete_after_print, created_at, updated_at)
         VALUES (@id, @organizationId, @userId, @printerId, 'pending', @filePath, @fileSize, @fileSha256,
           @fileExtension, @contentType, @fileName, @ticketJson, @deleteAfterPrint, @createdAt, @updatedAt)`,
      )
      .run({
        id: job.id,
        organizationId: job.organizationId,
        userId: job.userId,
        printerId: job.printerId,
        ...jobFileParams(job.file),
        fileName: job.file.name,
        ticketJson: JSON.stringify(job.ticket),
        deleteAfterPrint: job.deleteAfterPrint ? 1 : 0,
        createdAt: job.createdAt,
        updatedAt: job.updatedAt,
      });
  }

  findById(id: string): JobRecord | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row && toRecord(row);
  }

  /** One page of the jobs of one organization, or of every one (undefined), newest first. */
  recent(organizationId: string | undefined, limit: number, offset: number): JobRecord[] {
    const { clause, params } = organizationScope('organization_id', organizationId);
    const rows = this.db
      .prepare(`SELECT * FROM jobs ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as JobRow[];
    return rows.map(toRecord);
  }

  /**
   * Jobs to offer a connector on any of the given printers, in creation order: the pending ones,
   * and the ones it claimed but never reported received (it may have died before recording them).
   */
  offerableForPrinters(printerIds: string[], connectorId: string): JobRecord[] {
    if (printerIds.length === 0) return [];
    const marks = printerIds.map(() => '?').join(',');
    const rows = this.db
      .prepare(
        `SELECT * FROM jobs WHERE printer_id IN (${marks})
           AND (state = 'pending' OR (state = 'claimed' AND claimed_by = ?)) ORDER BY rowid`,
      )
      .all(...printerIds, connectorId) as JobRow[];
    return rows.map(toRecord);
  }

  /** 1-based position of an unfinished job among the unfinished jobs of its printer (creation order). */
  queuePosition(job: JobRecord): number {
    const row = this.db
      .prepare(
        // Unfinished states listed (not the finished ones excluded), so the (printer_id, state)
        // index reaches only the unfinished jobs, however many finished ones the printer has.
        `SELECT COUNT(*) AS n FROM jobs
         WHERE printer_id = ? AND state IN (${UNFINISHED_SQL})
           AND rowid <= (SELECT rowid FROM jobs WHERE id = ?)`,
      )
      .get(job.printerId, job.id) as { n: number };
    return row.n;
  }

  /** Claims a pending (or already own) job for a connector; false when another holds it. */
  claim(id: string, connectorId: string, now: number): boolean {
    const result = this.db
      .prepare(
        `UPDATE jobs SET claimed_by = ?, state = CASE WHEN state = 'pending' THEN 'claimed' ELSE state END,
           updated_at = ? WHERE id = ? AND (claimed_by IS NULL OR claimed_by = ?)`,
      )
      .run(connectorId, now, id, connectorId);
    return result.changes === 1;
  }

  /** Writes the progress an event produced. */
  saveProgress(id: string, p: JobProgress, now: number): void {
    this.db
      .prepare(
        `UPDATE jobs SET state = ?, pages_printed = ?, pages_total = ?, printer_job_id = ?, error_code = ?,
           message = ?, last_seq = ?, finished_at = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        p.state,
        p.pagesPrinted,
        p.pagesTotal,
        p.printerJobId,
        p.errorCode,
        p.message,
        p.lastSeq,
        p.finishedAt,
        now,
        id,
      );
  }

  /** Records that the stored document was removed. */
  /** Paths of the documents an organization's jobs still keep on disk (distinct). */
  documentPathsOfOrganization(organizationId: string): string[] {
    const rows = this.db
      .prepare('SELECT DISTINCT file_path FROM jobs WHERE organization_id = ? AND file_deleted = 0')
      .all(organizationId) as { file_path: string }[];
    return rows.map((r) => r.file_path);
  }

  /** Deletes the jobs of `organizationId` and their events (the organization is being deleted). */
  deleteOfOrganization(organizationId: string): void {
    this.db.prepare('DELETE FROM jobs WHERE organization_id = ?').run(organizationId);
  }

  markFileDeleted(id: string): void {
    this.db.prepare('UPDATE jobs SET file_deleted = 1 WHERE id = ?').run(id);
  }

  /** True when an event with this id was already received. */
  hasEvent(eventId: string): boolean {
    return this.db.prepare('SELECT 1 FROM job_events WHERE event_id = ?').get(eventId) !== undefined;
  }

  /** Stores a received event (applied or ignored as stale). */
  insertEvent(
    e: {
      eventId: string;
      jobId: string;
      seq: number;
      kind: string;
      at: string;
      body: unknown;
      applied: boolean;
    },
    now: number,
  ): void {
    this.db
      .prepare(
        `INSERT INTO job_events (event_id, job_id, seq, kind, at, body_json, applied, received_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(e.eventId, e.jobId, e.seq, e.kind, e.at, JSON.stringify(e.body), e.applied ? 1 : 0, now);
  }
}

type JobProgressDefaults = Omit<JobProgress, 'state'>;
