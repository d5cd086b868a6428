/**
 * Reads of the printers table under groups/' rules: the printers a user may use, and the page of
 * printers that have a group assignment. The conditions over the assignment tables are the groups
 * domain's own SQL (groups/groups-face.ts); this file runs them against printers, each read one
 * query. Borrowing the database handle; the owner of the handle closes it.
 */
import { ASSIGNED_SQL, ASSIGNED_TO_GROUP_SQL, USABLE_BY_USER_SQL } from '../groups/groups-face.js';
import type { EmulatorDatabase } from '../store/database.js';

/** Reads printers by assignment and by the access rule. */
export class PrinterAccessRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /**
   * One page of the ids of an organization's printers that have an assignment (by printer
   * name), optionally only those assigned to `groupId`; with the total count.
   */
  pageAssigned(
    organizationId: string,
    query: { groupId?: string; limit: number; offset: number },
  ): { count: number; printers: { id: string; name: string }[] } {
    const assigned = query.groupId === undefined ? ASSIGNED_SQL : ASSIGNED_TO_GROUP_SQL;
    const where = `printers.organization_id = ? AND ${assigned}`;
    const args = query.groupId === undefined ? [organizationId] : [organizationId, query.groupId];
    const count = (
      this.db.prepare(`SELECT COUNT(*) AS n FROM printers WHERE ${where}`).get(...args) as { n: number }
    ).n;
    const rows = this.db
      .prepare(
        `SELECT printers.id, printers.name FROM printers WHERE ${where} ORDER BY printers.name, printers.id LIMIT ? OFFSET ?`,
      )
      .all(...args, query.limit, query.offset) as { id: string; name: string }[];
    return { count, printers: rows };
  }

  /** The ids of the organization's printers the user (null: no user) may use, in one query. */
  usableIds(organizationId: string, userId: string | null): Set<string> {
    const rows = this.db
      .prepare(
        `SELECT printers.id FROM printers WHERE printers.organization_id = ? AND ${USABLE_BY_USER_SQL}`,
      )
      .all(organizationId, userId) as { id: string }[];
    return new Set(rows.map((row) => row.id));
  }

  /** True when the printer exists and the user (null: no user) may use it under the access rule. */
  usableBy(printerId: string, userId: string | null): boolean {
    const row = this.db
      .prepare(`SELECT 1 AS ok FROM printers WHERE printers.id = ? AND ${USABLE_BY_USER_SQL}`)
      .get(printerId, userId);
    return row !== undefined;
  }
}
