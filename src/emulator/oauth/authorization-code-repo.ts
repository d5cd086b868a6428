/**
 * Authorization codes of the authorization code grant: only a SHA-256 hash of each code is
 * stored, bound to its client, user, redirect URI, scopes, PKCE challenge and nonce, with the
 * refresh-token family its tokens get (so a replayed code can revoke them). Borrowing the
 * database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { hashToken } from '../store/secret-hash.js';

/** A stored authorization code. */
export interface AuthorizationCodeRecord {
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  nonce: string | null;
  familyId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

interface CodeRow {
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  nonce: string | null;
  family_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

function toRecord(r: CodeRow): AuthorizationCodeRecord {
  return {
    clientId: r.client_id,
    userId: r.user_id,
    redirectUri: r.redirect_uri,
    scopes: r.scopes === '' ? [] : r.scopes.split(' '),
    codeChallenge: r.code_challenge,
    nonce: r.nonce,
    familyId: r.family_id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
  };
}

/** Reads and writes authorization codes by the hash of the code. */
export class AuthorizationCodeRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Stores a new, unused code. */
  insert(code: string, record: Omit<AuthorizationCodeRecord, 'usedAt'>): void {
    this.db
      .prepare(
        `INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, code_challenge, nonce,
           family_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hashToken(code),
        record.clientId,
        record.userId,
        record.redirectUri,
        record.scopes.join(' '),
        record.codeChallenge,
        record.nonce,
        record.familyId,
        record.createdAt,
        record.expiresAt,
      );
  }

  find(code: string): AuthorizationCodeRecord | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_codes WHERE code_hash = ?').get(hashToken(code)) as
      | CodeRow
      | undefined;
    return row && toRecord(row);
  }

  /** Marks the code used; false when it was used before (the caller treats that as a replay). */
  markUsed(code: string, now: number): boolean {
    const result = this.db
      .prepare('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL')
      .run(now, hashToken(code));
    return result.changes === 1;
  }
}
