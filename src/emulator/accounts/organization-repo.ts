/**
 * Organizations table: the tenants of the emulated cloud. Borrowing the database handle; the
 * owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorDatabase } from '../store/database.js';

/** A stored organization. */
export interface Organization {
  id: string;
  name: string;
  createdAt: number;
}

interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
}

const toOrganization = (r: OrganizationRow): Organization => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
});

/** Reads and writes organizations. */
export class OrganizationRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts an organization and returns it. */
  create(name: string, now: number): Organization {
    const org: Organization = { id: randomUUID(), name, createdAt: now };
    this.db
      .prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)')
      .run(org.id, name, now);
    return org;
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

  /** Number of organizations: 0 means an empty (unseeded) database. */
  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM organizations').get() as { n: number }).n;
  }
}
