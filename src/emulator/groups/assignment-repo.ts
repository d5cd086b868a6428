/**
 * Printer-group assignments (table printer_group_assignments): which groups a printer is
 * assigned to, with force_chosen. Rows go with their printer or group (ON DELETE CASCADE).
 * Also the SQL conditions on `printers.id` that printers/printer-access-repo.ts and
 * printers/printer-repo.ts run against printers (through groups-face.ts): a printer has an
 * assignment, and the access rule "a user can use every printer assigned to any group the user
 * belongs to; a printer assigned to no group is usable by every user of its organization".
 * Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/** One group of a printer's assignment. */
export interface AssignedGroup {
  groupId: string;
  groupName: string;
  forceChosen: boolean;
}

/**
 * A condition on `printers.id` true when the user (the one `?` parameter; null: a caller without
 * a user, so in no group) may use the printer: it has no assignment, or one to a group of theirs.
 */
export const USABLE_BY_USER_SQL = `(NOT EXISTS (SELECT 1 FROM printer_group_assignments ua
      WHERE ua.printer_id = printers.id)
    OR EXISTS (SELECT 1 FROM printer_group_assignments ua JOIN group_members um ON um.group_id = ua.group_id
      WHERE ua.printer_id = printers.id AND um.user_id = ?))`;

/** A condition on `printers.id` true when the printer is assigned to some group. */
export const ASSIGNED_SQL = `EXISTS (SELECT 1 FROM printer_group_assignments a
      WHERE a.printer_id = printers.id)`;

/** A condition on `printers.id` true when the printer is assigned to the group (its one `?`). */
export const ASSIGNED_TO_GROUP_SQL = `EXISTS (SELECT 1 FROM printer_group_assignments a
      WHERE a.printer_id = printers.id AND a.group_id = ?)`;

/** Reads and writes assignments. */
export class AssignmentRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Assigns a printer to a group (an existing assignment takes the new force_chosen). */
  add(printerId: string, groupId: string, forceChosen: boolean, now: number): void {
    this.db
      .prepare(
        `INSERT INTO printer_group_assignments (printer_id, group_id, force_chosen, created_at)
         VALUES (?, ?, ?, ?) ON CONFLICT (printer_id, group_id) DO UPDATE SET force_chosen = excluded.force_chosen`,
      )
      .run(printerId, groupId, forceChosen ? 1 : 0, now);
  }

  /** Removes a printer's assignment to a group (nothing when there is none). */
  remove(printerId: string, groupId: string): void {
    this.db
      .prepare('DELETE FROM printer_group_assignments WHERE printer_id = ? AND group_id = ?')
      .run(printerId, groupId);
  }

  /** The groups a printer is assigned to, in the order they were assigned. */
  groupsOfPrinter(printerId: string): AssignedGroup[] {
    return this.groupsOfPrinters([printerId]).get(printerId) ?? [];
  }

  /** The groups of each of `printerIds` (in assignment order) in one query; a printer without any is absent. */
  groupsOfPrinters(printerIds: readonly string[]): Map<string, AssignedGroup[]> {
    const byPrinter = new Map<string, AssignedGroup[]>();
    if (printerIds.length === 0) return byPrinter;
    const rows = this.db
      .prepare(
        `SELECT a.printer_id, a.group_id, g.name, a.force_chosen FROM printer_group_assignments a
         JOIN printing_groups g ON g.id = a.group_id
         WHERE a.printer_id IN (SELECT value FROM json_each(?)) ORDER BY a.created_at, a.rowid`,
      )
      .all(JSON.stringify(printerIds)) as {
      printer_id: string;
      group_id: string;
      name: string;
      force_chosen: number;
    }[];
    for (const r of rows) {
      const list = byPrinter.get(r.printer_id) ?? [];
      if (list.length === 0) byPrinter.set(r.printer_id, list);
      list.push({ groupId: r.group_id, groupName: r.name, forceChosen: r.force_chosen === 1 });
    }
    return byPrinter;
  }
}
