/**
 * The client-creation log: who created which OAuth client when, for the per-admin hourly limit
 * (client-creation-limits.ts). An append-mostly table. Borrowing the database handle; the owner
 * closes it.
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

  /** Forgets the creations in `organizationId` (the organization is being deleted). */
  deleteOfOrganization(organizationId: string): void {
    this.db.prepare('DELETE FROM oauth_client_creations WHERE organization_id = ?').run(organizationId);
  }
}
