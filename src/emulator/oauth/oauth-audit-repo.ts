/**
 * The revoked access tokens of the OAuth server (by `jti`, kept until the token would have
 * expired anyway), a small append-mostly table. Borrowing the database handle; the owner closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

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
