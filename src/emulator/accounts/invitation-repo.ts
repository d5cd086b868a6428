/**
 * Invitations table: who is invited to which organization, with what roles, until when, the
 * SHA-256 of the acceptance link's token, and when (and as which user) it was accepted.
 * Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import type { UserRole } from './user-repo.js';

/** A stored invitation. */
export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  firstName: string;
  lastName: string;
  preferredLanguage: string;
  roles: UserRole[];
  tokenHash: string;
  expireAt: number;
  acceptedAt: number | null;
  /** The id the invited user gets (announced before acceptance), or the existing user who accepted. */
  userId: string;
  createdAt: number;
  updatedAt: number;
}

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  first_name: string;
  last_name: string;
  preferred_language: string;
  roles: string;
  token_hash: string;
  expire_at: number;
  accepted_at: number | null;
  accepted_user_id: string;
  created_at: number;
  updated_at: number;
}

const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  organizationId: r.organization_id,
  email: r.email,
  firstName: r.first_name,
  lastName: r.last_name,
  preferredLanguage: r.preferred_language,
  roles: JSON.parse(r.roles) as UserRole[],
  tokenHash: r.token_hash,
  expireAt: r.expire_at,
  acceptedAt: r.accepted_at,
  userId: r.accepted_user_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Reads and writes invitations. */
export class InvitationRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  insert(inv: Invitation): void {
    this.db
      .prepare(
        `INSERT INTO invitations (id, organization_id, email, first_name, last_name, preferred_language, roles,
           token_hash, expire_at, accepted_at, accepted_user_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        inv.id,
        inv.organizationId,
        inv.email,
        inv.firstName,
        inv.lastName,
        inv.preferredLanguage,
        JSON.stringify(inv.roles),
        inv.tokenHash,
        inv.expireAt,
        inv.acceptedAt,
        inv.userId,
        inv.createdAt,
        inv.updatedAt,
      );
  }

  /** An invitation of an organization. */
  find(organizationId: string, id: string): Invitation | undefined {
    const row = this.db
      .prepare('SELECT * FROM invitations WHERE organization_id = ? AND id = ?')
      .get(organizationId, id) as InvitationRow | undefined;
    return row && toInvitation(row);
  }

  findByTokenHash(tokenHash: string): Invitation | undefined {
    const row = this.db.prepare('SELECT * FROM invitations WHERE token_hash = ?').get(tokenHash) as
      | InvitationRow
      | undefined;
    return row && toInvitation(row);
  }

  /** One page of an organization's invitations, oldest first. */
  list(organizationId: string, limit: number, offset: number): Invitation[] {
    const rows = this.db
      .prepare('SELECT * FROM invitations WHERE organization_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?')
      .all(organizationId, limit, offset) as InvitationRow[];
    return rows.map(toInvitation);
  }

  count(organizationId: string): number {
    const row = this.db
      .prepare('SELECT COUNT(*) AS n FROM invitations WHERE organization_id = ?')
      .get(organizationId) as { n: number };
    return row.n;
  }

  /** Whether an unaccepted, unexpired invitation for `email` exists in the organization. */
  hasOpen(organizationId: string, email: string, now: number): boolean {
    const row = this.db
      .prepare(
        `SELECT 1 FROM invitations WHERE organization_id = ? AND email = ? AND accepted_at IS NULL
         AND expire_at > ?`,
      )
      .get(organizationId, email, now);
    return row !== undefined;
  }

  /** Resend: new address and expiry, a new link token. */
  resend(id: string, email: string, expireAt: number, tokenHash: string, now: number): void {
    this.db
      .prepare('UPDATE invitations SET email = ?, expire_at = ?, token_hash = ?, updated_at = ? WHERE id = ?')
      .run(email, expireAt, tokenHash, now, id);
  }

  markAccepted(id: string, userId: string, now: number): void {
    this.db
      .prepare('UPDATE invitations SET accepted_at = ?, accepted_user_id = ?, updated_at = ? WHERE id = ?')
      .run(now, userId, now, id);
  }
}
