/**
 * Records of stored documents (the file store's bookkeeping: owner, state, size, sha256, the
 * committed blocks of a block-list upload). The bytes live on disk; the records live here, so a
 * record is one SQLite row instead of a JSON file rewritten on every state change.
 * Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/**
 * Life of a stored file: pending (awaiting upload) / fetching (from a URL) -> ready -> printed
 * (taken by a Print without printanddelete: printable again, no longer writable) or consumed
 * (taken with printanddelete: deleted once that job ends, never printable again).
 */
export type StoredFileState = 'pending' | 'fetching' | 'ready' | 'failed' | 'printed' | 'consumed';

/** The record of one document. */
export interface StoredFile {
  fileId: string;
  organizationId: string;
  userId: string;
  state: StoredFileState;
  createdAt: number;
  /** Absolute path of the document (exists once ready). */
  path: string;
  size: number;
  sha256: string;
  /** Why a URL fetch failed. */
  error?: string;
  /** Blocks of the committed blob, for later block lists that name Committed blocks. */
  committed?: { id: string; offset: number; length: number }[];
}

interface StoredFileRow {
  file_id: string;
  organization_id: string;
  user_id: string;
  state: StoredFileState;
  created_at: number;
  path: string;
  size: number;
  sha256: string;
  error: string | null;
  committed_json: string | null;
}

export class StoredFileRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** The organization's pending uploads created after `since`, and when the oldest of them was. */
  pendingUploads(organizationId: string, since: number): { count: number; oldest: number | null } {
    return this.db
      .prepare(
        `SELECT COUNT(*) AS count, MIN(created_at) AS oldest FROM stored_files
         WHERE organization_id = ? AND state = 'pending' AND created_at > ?`,
      )
      .get(organizationId, since) as { count: number; oldest: number | null };
  }

  /** Ids of pending uploads created at or before `before` (their upload URL has expired). */
  expiredPending(before: number): string[] {
    const rows = this.db
      .prepare(`SELECT file_id FROM stored_files WHERE state = 'pending' AND created_at <= ?`)
      .all(before) as { file_id: string }[];
    return rows.map((r) => r.file_id);
  }

  /** Inserts the record or replaces the stored one of the same file id. */
  save(file: StoredFile): void {
    this.db
      .prepare(
        `INSERT INTO stored_files (file_id, organization_id, user_id, state, created_at, path, size, sha256, error, committed_json)
         VALUES (@fileId, @organizationId, @userId, @state, @createdAt, @path, @size, @sha256, @error, @committed)
         ON CONFLICT(file_id) DO UPDATE SET state = excluded.state, path = excluded.path, size = excluded.size,
           sha256 = excluded.sha256, error = excluded.error, committed_json = excluded.committed_json`,
      )
      .run({
        fileId: file.fileId,
        organizationId: file.organizationId,
        userId: file.userId,
        state: file.state,
        createdAt: file.createdAt,
        path: file.path,
        size: file.size,
        sha256: file.sha256,
        error: file.error ?? null,
        committed: file.committed ? JSON.stringify(file.committed) : null,
      });
  }

  /**
   * Marks a pending file ready with its bytes at `path`, in one statement: true only for the
   * first completed upload; false when the file is no longer pending (uploaded, printed).
   */
  completeUpload(file: StoredFile): boolean {
    const result = this.db
      .prepare(
        `UPDATE stored_files SET state = 'ready', path = ?, size = ?, sha256 = ?, committed_json = ?
         WHERE file_id = ? AND state = 'pending'`,
      )
      .run(
        file.path,
        file.size,
        file.sha256,
        file.committed ? JSON.stringify(file.committed) : null,
        file.fileId,
      );
    return result.changes === 1;
  }

  /** Moves a file from state `from` to `to` in one statement; false when it was not in `from`. */
  transition(fileId: string, from: StoredFileState, to: StoredFileState): boolean {
    const result = this.db
      .prepare('UPDATE stored_files SET state = ? WHERE file_id = ? AND state = ?')
      .run(to, fileId, from);
    return result.changes === 1;
  }

  find(fileId: string): StoredFile | undefined {
    const row = this.db.prepare('SELECT * FROM stored_files WHERE file_id = ?').get(fileId) as
      | StoredFileRow
      | undefined;
    return row ? toStoredFile(row) : undefined;
  }

  /** Every file record of an organization (read them before the organization's delete drops them). */
  listByOrganization(organizationId: string): StoredFile[] {
    const rows = this.db
      .prepare('SELECT * FROM stored_files WHERE organization_id = ? ORDER BY created_at, file_id')
      .all(organizationId) as StoredFileRow[];
    return rows.map(toStoredFile);
  }

  /** Deletes the records of `organizationId` (the organization is being deleted). */
  deleteOfOrganization(organizationId: string): void {
    this.db.prepare('DELETE FROM stored_files WHERE organization_id = ?').run(organizationId);
  }

  remove(fileId: string): void {
    this.db.prepare('DELETE FROM stored_files WHERE file_id = ?').run(fileId);
  }
}

function toStoredFile(row: StoredFileRow): StoredFile {
  const file: StoredFile = {
    fileId: row.file_id,
    organizationId: row.organization_id,
    userId: row.user_id,
    state: row.state,
    createdAt: row.created_at,
    path: row.path,
    size: row.size,
    sha256: row.sha256,
  };
  if (row.error !== null) file.error = row.error;
  if (row.committed_json !== null) file.committed = JSON.parse(row.committed_json) as StoredFile['committed'];
  return file;
}
