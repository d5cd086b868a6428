/**
 * Printing groups of an organization and their members (tables printing_groups, group_members).
 * A group's memberships and printer assignments go with it (ON DELETE CASCADE); a deleted user
 * leaves its groups the same way. Validation lives in services/group-rules.ts; this file only
 * stores. Borrowing the database handle; the owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorDatabase } from '../store/database.js';

/** A stored group with its computed counts. */
export interface GroupRecord {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  localPrintingEnabled: boolean;
  myprintersEnabled: boolean;
  originProvider: string;
  numMembers: number;
  numPrinters: number;
  createdAt: number;
}

/** The writable fields of a group. */
export type GroupFields = Pick<
  GroupRecord,
  'name' | 'description' | 'localPrintingEnabled' | 'myprintersEnabled' | 'originProvider'
>;

interface GroupRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  local_printing_enabled: number;
  myprinters_enabled: number;
  origin_provider: string;
  num_members: number;
  num_printers: number;
  created_at: number;
}

const SELECT = `SELECT g.*,
    (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) AS num_members,
    (SELECT COUNT(*) FROM printer_group_assignments a WHERE a.group_id = g.id) AS num_printers
  FROM printing_groups g`;

function toRecord(r: GroupRow): GroupRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    localPrintingEnabled: r.local_printing_enabled === 1,
    myprintersEnabled: r.myprinters_enabled === 1,
    originProvider: r.origin_provider,
    numMembers: r.num_members,
    numPrinters: r.num_printers,
    createdAt: r.created_at,
  };
}

/** Reads and writes groups and memberships. */
export class GroupRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  insert(organizationId: string, f: GroupFields, now: number): GroupRecord {
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO printing_groups (id, organization_id, name, description, local_printing_enabled,
           myprinters_enabled, origin_provider, created_at)
         VALUES (@id, @organizationId, @name, @description, @localPrinting, @myprinters, @origin, @now)`,
      )
      .run({ id, organizationId, now, ...groupParams(f) });
    return this.findById(id)!;
  }

  update(id: string, f: GroupFields): GroupRecord {
    this.db
      .prepare(
        `UPDATE printing_groups SET name = @name, description = @description,
           local_printing_enabled = @localPrinting, myprinters_enabled = @myprinters,
           origin_provider = @origin WHERE id = @id`,
      )
      .run({ id, ...groupParams(f) });
    return this.findById(id)!;
  }

  /** Deletes a group; its memberships and assignments go with it. */
  delete(id: string): void {
    this.db.prepare('DELETE FROM printing_groups WHERE id = ?').run(id);
  }

  findById(id: string): GroupRecord | undefined {
    const row = this.db.prepare(`${SELECT} WHERE g.id = ?`).get(id) as GroupRow | undefined;
    return row && toRecord(row);
  }

  /** One page of an organization's groups (oldest first) and their total count. */
  page(organizationId: string, limit: number, offset: number): { count: number; rows: GroupRecord[] } {
    const count = (
      this.db
        .prepare('SELECT COUNT(*) AS n FROM printing_groups WHERE organization_id = ?')
        .get(organizationId) as {
        n: number;
      }
    ).n;
    const rows = this.db
      .prepare(`${SELECT} WHERE g.organization_id = ? ORDER BY g.created_at, g.rowid LIMIT ? OFFSET ?`)
      .all(organizationId, limit, offset) as GroupRow[];
    return { count, rows: rows.map(toRecord) };
  }

  /** The ids of the groups a user belongs to, oldest group first. */
  groupsOfUser(userId: string): string[] {
    const rows = this.db
      .prepare(
        `SELECT m.group_id FROM group_members m JOIN printing_groups g ON g.id = m.group_id
         WHERE m.user_id = ? ORDER BY g.created_at, g.rowid`,
      )
      .all(userId) as { group_id: string }[];
    return rows.map((r) => r.group_id);
  }

  /** Replaces a user's memberships with `groupIds`. */
  setGroupsOfUser(userId: string, groupIds: readonly string[]): void {
    this.db.prepare('DELETE FROM group_members WHERE user_id = ?').run(userId);
    const insert = this.db.prepare('INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)');
    for (const groupId of groupIds) insert.run(groupId, userId);
  }
}

/** The named parameters of a group's settings, as insert and update bind them. */
function groupParams(f: GroupFields) {
  return {
    name: f.name,
    description: f.description,
    localPrinting: f.localPrintingEnabled ? 1 : 0,
    myprinters: f.myprintersEnabled ? 1 : 0,
    origin: f.originProvider,
  };
}
