/**
 * Two small append-mostly tables of the OAuth server: the client-creation log (who created which
 * client when, for the per-admin hourly limit) and the revoked access tokens (by `jti`, kept until
 * the token would have expired anyway). Borrowing the database handle; the owner closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/** The client-creation log. */
export class ClientCreationLogRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Records that `adminUserId` created `clientId` at `now`. */
  record(adminUserId: string, organizationId: string, clientId: string, now: number): void {
    this.db
      .prepare(
        'INSERT INTO oauth_client_creations (admin_user_id, organization_id, client_id, created_at) VALUES (?, ?, ?, ?)',
      )
      .run(adminUserId, organizationId, clientId, now);
  }

  /** Creation times of `adminUserId` at or after `since`, oldest first. */
  since(adminUserId: string, since: number): number[] {
    const rows = this.db
      .prepare(
        'SELECT created_at FROM oauth_client_creations WHERE admin_user_id = ? AND created_at >= ? ORDER BY created_at',
      )
      .all(adminUserId, since) as { created_at: number }[];
    return rows.map((r) => r.created_at);
  }
}

/** Access tokens revoked before their expiry (RFC 7009). */
export class RevokedAccessTokenRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Records a revoked token id; revoking twice is harmless. */
  revoke(jti: string, expiresAt: number): void {
    this.db
      .prepare(
        'INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING',
      )
      .run(jti, expiresAt);
  }

  /** Forgets revoked tokens that expired before `now` (they fail verification anyway). */
  prune(now: number): void {
    this.db.prepare('DELETE FROM revoked_access_tokens WHERE expires_at <= ?').run(now);
  }

  isRevoked(jti: string): boolean {
    return this.db.prepare('SELECT 1 FROM revoked_access_tokens WHERE jti = ?').get(jti) !== undefined;
  }
}
