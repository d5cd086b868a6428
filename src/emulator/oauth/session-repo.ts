/**
 * Browser sessions of the sign-in pages: a random session id (only its SHA-256 hash stored), the
 * signed-in user (null before sign-in) and the session's CSRF token. Borrowing the database
 * handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { hashToken } from '../store/secret-hash.js';

/** A stored browser session. */
export interface SessionRecord {
  userId: string | null;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

interface SessionRow {
  user_id: string | null;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** Reads and writes sessions by the hash of their id. */
export class SessionRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Stores a session under `id`. */
  insert(id: string, record: SessionRecord): void {
    this.db
      .prepare(
        'INSERT INTO oauth_sessions (id_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(hashToken(id), record.userId, record.csrfToken, record.createdAt, record.expiresAt);
  }

  find(id: string): SessionRecord | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_sessions WHERE id_hash = ?').get(hashToken(id)) as
      | SessionRow
      | undefined;
    return (
      row && {
        userId: row.user_id,
        csrfToken: row.csrf_token,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  /** Deletes a session (sign-in replaces the anonymous one; expiry removes it). */
  delete(id: string): void {
    this.db.prepare('DELETE FROM oauth_sessions WHERE id_hash = ?').run(hashToken(id));
  }

  /** Deletes every session that expired before `now`. */
  deleteExpired(now: number): void {
    this.db.prepare('DELETE FROM oauth_sessions WHERE expires_at <= ?').run(now);
  }
}
