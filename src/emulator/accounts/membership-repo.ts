/**
 * Memberships table: which users belong to which organizations, with their roles there. A user
 * has a home organization (users.organization_id, the one its tokens are issued for) and may be
 * a member of further organizations through the partner API. Borrowing the database handle.
 */
import type { EmulatorDatabase } from '../store/database.js';
import type { UserRole } from './user-repo.js';

/** A stored membership. */
export interface Membership {
  userId: string;
  organizationId: string;
  roles: UserRole[];
  createdAt: number;
}

interface MembershipRow {
  user_id: string;
  organization_id: string;
  roles: string;
  created_at: number;
}

const toMembership = (r: MembershipRow): Membership => ({
  userId: r.user_id,
  organizationId: r.organization_id,
  roles: JSON.parse(r.roles) as UserRole[],
  createdAt: r.created_at,
});

/** Stable order of members in an organization: joined, then user id. */
const MEMBER_ORDER = 'ORDER BY m.created_at, m.user_id';

/** Reads and writes memberships. */
export class MembershipRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  add(userId: string, organizationId: string, roles: UserRole[], now: number): Membership {
    this.db
      .prepare('INSERT INTO memberships (user_id, organization_id, roles, created_at) VALUES (?, ?, ?, ?)')
      .run(userId, organizationId, JSON.stringify(roles), now);
    return { userId, organizationId, roles, createdAt: now };
  }

  find(userId: string, organizationId: string): Membership | undefined {
    const row = this.db
      .prepare('SELECT * FROM memberships WHERE user_id = ? AND organization_id = ?')
      .get(userId, organizationId) as MembershipRow | undefined;
    return row && toMembership(row);
  }

  /** One page of an organization's memberships. */
  listByOrganization(organizationId: string, limit: number, offset: number): Membership[] {
    const rows = this.db
      .prepare(`SELECT m.* FROM memberships m WHERE m.organization_id = ? ${MEMBER_ORDER} LIMIT ? OFFSET ?`)
      .all(organizationId, limit, offset) as MembershipRow[];
    return rows.map(toMembership);
  }

  countByOrganization(organizationId: string): number {
    return this.count('SELECT COUNT(*) AS n FROM memberships WHERE organization_id = ?', organizationId);
  }

  /** Every membership of a user, oldest first. */
  listByUser(userId: string): Membership[] {
    const rows = this.db
      .prepare('SELECT * FROM memberships WHERE user_id = ? ORDER BY created_at, organization_id')
      .all(userId) as MembershipRow[];
    return rows.map(toMembership);
  }

  /** One page of a user's memberships in organizations managed by `partnerId`. */
  listByUserManaged(userId: string, partnerId: string, limit: number, offset: number): Membership[] {
    const rows = this.db
      .prepare(
        `SELECT m.* FROM memberships m JOIN organizations o ON o.id = m.organization_id
         WHERE m.user_id = ? AND o.managed_by = ? ORDER BY m.created_at, m.organization_id LIMIT ? OFFSET ?`,
      )
      .all(userId, partnerId, limit, offset) as MembershipRow[];
    return rows.map(toMembership);
  }

  countByUserManaged(userId: string, partnerId: string): number {
    return this.count(
      `SELECT COUNT(*) AS n FROM memberships m JOIN organizations o ON o.id = m.organization_id
       WHERE m.user_id = ? AND o.managed_by = ?`,
      userId,
      partnerId,
    );
  }

  countByUser(userId: string): number {
    return this.count('SELECT COUNT(*) AS n FROM memberships WHERE user_id = ?', userId);
  }

  /** Members of an organization holding the admin role. */
  countAdmins(organizationId: string): number {
    return this.count(
      `SELECT COUNT(*) AS n FROM memberships m, json_each(m.roles) r
       WHERE m.organization_id = ? AND r.value = 'admin'`,
      organizationId,
    );
  }

  setRoles(userId: string, organizationId: string, roles: UserRole[]): void {
    this.db
      .prepare('UPDATE memberships SET roles = ? WHERE user_id = ? AND organization_id = ?')
      .run(JSON.stringify(roles), userId, organizationId);
  }

  remove(userId: string, organizationId: string): void {
    this.db
      .prepare('DELETE FROM memberships WHERE user_id = ? AND organization_id = ?')
      .run(userId, organizationId);
  }

  private count(sql: string, ...params: string[]): number {
    return (this.db.prepare(sql).get(...params) as { n: number }).n;
  }
}
