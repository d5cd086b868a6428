/**
 * Organizations table: the tenants of the emulated cloud, with the partner that manages each
 * (managed_by), its currency and owner. Borrowing the database handle; the owner of the handle
 * closes it.
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';

/** Currencies an organization may bill in (partner spec). */
export type CurrencyCode = 'USD' | 'EUR';

/** A stored organization. */
export interface Organization {
  id: string;
  name: string;
  createdAt: number;
  currencyCode: CurrencyCode;
  /** A partner account: its admins call the partner API for the organizations it manages. */
  isPartner: boolean;
  /** The partner organization that manages this one, or null. */
  managedBy: string | null;
  /** The user named as admin at creation through the partner API, or null. */
  ownerUserId: string | null;
}

/** Input of OrganizationRepo.create beyond the name. */
export interface NewOrganizationOptions {
  currencyCode?: CurrencyCode;
  isPartner?: boolean;
  managedBy?: string | null;
  ownerUserId?: string | null;
}

interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
  currency_code: string;
  is_partner: number;
  managed_by: string | null;
  owner_user_id: string | null;
}

const toOrganization = (r: OrganizationRow): Organization => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  currencyCode: r.currency_code as CurrencyCode,
  isPartner: r.is_partner === 1,
  managedBy: r.managed_by,
  ownerUserId: r.owner_user_id,
});

/** Reads and writes organizations. */
export class OrganizationRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts an organization and returns it. */
  create(name: string, now: number, options: NewOrganizationOptions = {}): Organization {
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO organizations (id, name, created_at, currency_code, is_partner, managed_by, owner_user_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        name,
        now,
        options.currencyCode ?? 'EUR',
        options.isPartner ? 1 : 0,
        options.managedBy ?? null,
        options.ownerUserId ?? null,
      );
    return this.findById(id)!;
  }

  findById(id: string): Organization | undefined {
    const row = this.db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as
      | OrganizationRow
      | undefined;
    return row && toOrganization(row);
  }

  findByName(name: string): Organization | undefined {
    const row = this.db.prepare('SELECT * FROM organizations WHERE name = ?').get(name) as
      | OrganizationRow
      | undefined;
    return row && toOrganization(row);
  }

  list(): Organization[] {
    const rows = this.db
      .prepare('SELECT * FROM organizations ORDER BY created_at, name')
      .all() as OrganizationRow[];
    return rows.map(toOrganization);
  }

  /** The id and name of one organization, or of every one (undefined), by name. */
  listNames(organizationId?: string): { id: string; name: string }[] {
    const { clause, params } = organizationScope('id', organizationId);
    return this.db.prepare(`SELECT id, name FROM organizations ${clause} ORDER BY name`).all(...params) as {
      id: string;
      name: string;
    }[];
  }

  /** One page of the organizations a partner manages (created, then name, then id). */
  listManaged(partnerId: string, limit: number, offset: number): Organization[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM organizations WHERE managed_by = ? ORDER BY created_at, name, id LIMIT ? OFFSET ?',
      )
      .all(partnerId, limit, offset) as OrganizationRow[];
    return rows.map(toOrganization);
  }

  countManaged(partnerId: string): number {
    const row = this.db
      .prepare('SELECT COUNT(*) AS n FROM organizations WHERE managed_by = ?')
      .get(partnerId) as { n: number };
    return row.n;
  }

  /** Marks `id` as managed by `partnerId` (the seed). */
  setManagedBy(id: string, partnerId: string): void {
    this.db.prepare('UPDATE organizations SET managed_by = ? WHERE id = ?').run(partnerId, id);
  }

  rename(id: string, name: string): void {
    this.db.prepare('UPDATE organizations SET name = ? WHERE id = ?').run(name, id);
  }

  /**
   * Deletes the organization's row, whose foreign keys remove printers, connectors, groups,
   * clients, invitations, memberships, cards and pull-printing state. The records that name it
   * without a foreign key (jobs and their events, stored-file records, refresh tokens, the
   * client-creation log) are deleted first by the domains that own them
   * (partner/partner-organization-service.ts). Run inside the caller's transaction.
   */
  delete(id: string): void {
    this.db.prepare('DELETE FROM organizations WHERE id = ?').run(id);
  }

  /** Number of organizations: 0 means an empty (unseeded) database. */
  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM organizations').get() as { n: number }).n;
  }
}
