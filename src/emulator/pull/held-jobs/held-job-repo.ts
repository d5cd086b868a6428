/**
 * Held jobs table: documents printed to an organization's "Pull Printing" queue, waiting in the
 * submitting user's queue until a release device prints or deletes them. Borrowing the database
 * handle; the owner of the handle closes it.
 */
import type { PrintTicket } from '../../../protocol/print-ticket.js';
import { type JobFile, type JobFileRow, jobFileOf, jobFileParams } from '../../jobs/job-file.js';
import type { EmulatorDatabase } from '../../store/database.js';
import { organizationScope } from '../../store/organization-scope.js';

/** One held job. */
export interface HeldJobRecord {
  id: string;
  organizationId: string;
  userId: string;
  /** Job file name: the handle the device uses (`<id>.<extension>`). */
  fileName: string;
  displayName: string;
  driverName: string;
  file: JobFile;
  ticket: PrintTicket;
  onHold: boolean;
  /** The last real job a release started (its Status answers for the held id). */
  releasedJobId: string | null;
  createdAt: number;
  modifiedAt: number;
}

interface HeldRow extends JobFileRow {
  id: string;
  organization_id: string;
  user_id: string;
  file_name: string;
  display_name: string;
  driver_name: string;
  ticket_json: string;
  on_hold: number;
  released_job_id: string | null;
  created_at: number;
  modified_at: number;
}

function toRecord(r: HeldRow): HeldJobRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    userId: r.user_id,
    fileName: r.file_name,
    displayName: r.display_name,
    driverName: r.driver_name,
    file: jobFileOf(r),
    ticket: JSON.parse(r.ticket_json) as PrintTicket,
    onHold: r.on_hold === 1,
    releasedJobId: r.released_job_id,
    createdAt: r.created_at,
    modifiedAt: r.modified_at,
  };
}

/** Reads and writes held jobs. */
export class HeldJobRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts a held job. */
  insert(job: Omit<HeldJobRecord, 'onHold' | 'releasedJobId'>): void {
    this.db
      .prepare(
        `INSERT INTO held_jobs (id, organization_id, user_id, file_name, display_name, driver_name, file_path,
           file_size, file_sha256, file_extension, content_type, ticket_json, created_at, modified_at)
         VALUES (@id, @organizationId, @userId, @fileName, @displayName, @driverName, @filePath, @fileSize,
           @fileSha256, @fileExtension, @contentType, @ticketJson, @createdAt, @modifiedAt)`,
      )
      .run({
        id: job.id,
        organizationId: job.organizationId,
        userId: job.userId,
        fileName: job.fileName,
        displayName: job.displayName,
        driverName: job.driverName,
        ...jobFileParams(job.file),
        ticketJson: JSON.stringify(job.ticket),
        createdAt: job.createdAt,
        modifiedAt: job.modifiedAt,
      });
  }

  /** A held job by id. */
  findById(id: string): HeldJobRecord | undefined {
    const row = this.db.prepare('SELECT * FROM held_jobs WHERE id = ?').get(id) as HeldRow | undefined;
    return row && toRecord(row);
  }

  /** A user's held job by its file name or its id. */
  findForUser(userId: string, handle: string): HeldJobRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM held_jobs WHERE user_id = ? AND (file_name = ? COLLATE NOCASE OR id = ?)')
      .get(userId, handle, handle.toLowerCase()) as HeldRow | undefined;
    return row && toRecord(row);
  }

  /** A user's held jobs, oldest first. */
  listForUser(userId: string): HeldJobRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM held_jobs WHERE user_id = ? ORDER BY created_at, id')
      .all(userId) as HeldRow[];
    return rows.map(toRecord);
  }

  /** The held jobs not released yet of one organization, or of every one (undefined), oldest first. */
  listUnreleased(organizationId?: string): HeldJobRecord[] {
    const { clause, params } = organizationScope('organization_id', organizationId, [
      'released_job_id IS NULL',
    ]);
    const rows = this.db
      .prepare(`SELECT * FROM held_jobs ${clause} ORDER BY created_at, id`)
      .all(...params) as HeldRow[];
    return rows.map(toRecord);
  }

  /** Sets the hold flag and/or the modified date. */
  setProperties(id: string, props: { onHold?: boolean; modifiedAt?: number }): void {
    if (props.onHold !== undefined)
      this.db.prepare('UPDATE held_jobs SET on_hold = ? WHERE id = ?').run(props.onHold ? 1 : 0, id);
    if (props.modifiedAt !== undefined)
      this.db.prepare('UPDATE held_jobs SET modified_at = ? WHERE id = ?').run(props.modifiedAt, id);
  }

  /** Records the real job a release started. */
  setReleased(id: string, jobId: string, organizationId: string, now: number): void {
    this.db.prepare('UPDATE held_jobs SET released_job_id = ? WHERE id = ?').run(jobId, id);
    this.db
      .prepare(
        `INSERT INTO held_job_releases (held_job_id, organization_id, released_job_id, released_at)
         VALUES (?, ?, ?, ?)
         ON CONFLICT (held_job_id) DO UPDATE SET released_job_id = excluded.released_job_id,
           released_at = excluded.released_at`,
      )
      .run(id, organizationId, jobId, now);
  }

  /** The job the last release of a held job started, also after the held job was deleted. */
  lastRelease(id: string, organizationId: string): string | undefined {
    const row = this.db
      .prepare(
        'SELECT released_job_id AS jobId FROM held_job_releases WHERE held_job_id = ? AND organization_id = ?',
      )
      .get(id, organizationId) as { jobId: string } | undefined;
    return row?.jobId;
  }

  /** Deletes a held job; false when it was gone. */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM held_jobs WHERE id = ?').run(id).changes > 0;
  }
}
