/**
 * Refresh tokens table: only SHA-256 hashes are stored. Each token belongs to a family (one
 * sign-in); a token is single-use (spent on refresh) and reuse of a spent one revokes the family.
 * Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';
import { ACCESS_TOKEN_TTL_S } from './token-types.js';
import { hashToken } from '../store/secret-hash.js';

/** What a refresh token grants, found by the token's hash. */
export interface RefreshTokenRecord {
  familyId: string;
  clientId: string;
  userId: string;
  organizationId: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number;
  spentAt: number | null;
  revokedAt: number | null;
}

/** A sign-in: a token family with a live token, when it began and when its last token expires. */
export interface LiveSignIn {
  familyId: string;
  userId: string;
  clientId: string;
  since: number;
  expires: number;
}

interface RefreshRow {
  family_id: string;
  client_id: string;
  user_id: string;
  organization_id: string;
  scopes: string;
  created_at: number;
  expires_at: number;
  spent_at: number | null;
  revoked_at: number | null;
}

function toRecord(r: RefreshRow): RefreshTokenRecord {
  return {
    familyId: r.family_id,
    clientId: r.client_id,
    userId: r.user_id,
    organizationId: r.organization_id,
    scopes: r.scopes === '' ? [] : r.scopes.split(' '),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    spentAt: r.spent_at,
    revokedAt: r.revoked_at,
  };
}

/** Reads and writes refresh tokens by the hash of the token. */
export class RefreshTokenRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Stores the hash of `token` with its grant. */
  insert(token: string, record: Omit<RefreshTokenRecord, 'spentAt' | 'revokedAt'>): void {
    this.db
      .prepare(
        `INSERT INTO refresh_tokens (token_hash, family_id, client_id, user_id, organization_id, scopes,
           created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hashToken(token),
        record.familyId,
        record.clientId,
        record.userId,
        record.organizationId,
        record.scopes.join(' '),
        record.createdAt,
        record.expiresAt,
      );
  }

  find(token: string): RefreshTokenRecord | undefined {
    const row = this.db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?').get(hashToken(token)) as
      | RefreshRow
      | undefined;
    return row && toRecord(row);
  }

  /** Marks the token spent; false when it was already spent (a concurrent refresh won). */
  markSpent(token: string, now: number): boolean {
    const result = this.db
      .prepare('UPDATE refresh_tokens SET spent_at = ? WHERE token_hash = ? AND spent_at IS NULL')
      .run(now, hashToken(token));
    return result.changes === 1;
  }

  /**
   * Revokes every token of a family: its refresh tokens, and (through revoked_families, kept for
   * an access token's lifetime) the access tokens issued to it.
   */
  revokeFamily(familyId: string, now: number): void {
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL')
        .run(now, familyId);
      this.db
        .prepare('INSERT INTO revoked_families (family_id, revoked_at) VALUES (?, ?) ON CONFLICT DO NOTHING')
        .run(familyId, now);
      // Access tokens of a family revoked longer than their lifetime ago have all expired.
      this.db
        .prepare('DELETE FROM revoked_families WHERE revoked_at < ?')
        .run(now - ACCESS_TOKEN_TTL_S * 1000);
    })();
  }

  /** True when the family (sign-in) was revoked within an access token's lifetime. */
  isFamilyRevoked(familyId: string): boolean {
    return this.db.prepare('SELECT 1 FROM revoked_families WHERE family_id = ?').get(familyId) !== undefined;
  }

  /**
   * One page of the sign-ins (token families) still live at `now` (a token neither spent, revoked
   * nor expired) of one organization, or of every one (undefined), the latest begun first.
   */
  liveSignIns(organizationId: string | undefined, now: number, limit: number, offset: number): LiveSignIn[] {
    const { clause, params } = organizationScope('organization_id', organizationId, [
      'spent_at IS NULL',
      'revoked_at IS NULL',
      'expires_at > ?',
    ]);
    return this.db
      .prepare(
        `SELECT family_id AS familyId, user_id AS userId, client_id AS clientId, MIN(created_at) AS since,
           MAX(expires_at) AS expires FROM refresh_tokens ${clause}
         GROUP BY family_id ORDER BY since DESC, family_id LIMIT ? OFFSET ?`,
      )
      .all(...params, Math.floor(now), limit, offset) as LiveSignIn[];
  }

  /** Revokes every token issued to a client (used when the client is deleted). */
  revokeClient(clientId: string, now: number): void {
    this.db
      .prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL')
      .run(now, clientId);
  }

  /** Revokes a user's tokens for one organization (the user left it or was deleted). */
  revokeUserInOrganization(userId: string, organizationId: string, now: number): void {
    this.db
      .prepare(
        `UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND organization_id = ?
         AND revoked_at IS NULL`,
      )
      .run(now, userId, organizationId);
  }

  /** Revokes every token issued for an organization (it is being deleted). */
  /** Deletes the tokens of `organizationId` (the organization is being deleted). */
  deleteOfOrganization(organizationId: string): void {
    this.db.prepare('DELETE FROM refresh_tokens WHERE organization_id = ?').run(organizationId);
  }

  revokeOrganization(organizationId: string, now: number): void {
    this.db
      .prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE organization_id = ? AND revoked_at IS NULL')
      .run(now, organizationId);
  }
}
