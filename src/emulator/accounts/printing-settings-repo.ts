/**
 * The printing settings of users (columns of the users table): local printing, self service,
 * printer selection in the user portal, and pull printing (the same pull_printing_enabled that
 * /TPFM/ checks), owned by accounts/ as the whole users table is; group memberships live in
 * groups/group-repo.ts. Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/** A user's printing switches. */
export interface PrintingSettings {
  localPrintingEnabled: boolean;
  selfServiceEnabled: boolean;
  myprintersEnabled: boolean;
  pullPrintingEnabled: boolean;
}

const COLUMNS: Record<keyof PrintingSettings, string> = {
  localPrintingEnabled: 'local_printing_enabled',
  selfServiceEnabled: 'self_service_enabled',
  myprintersEnabled: 'myprinters_enabled',
  pullPrintingEnabled: 'pull_printing_enabled',
};

interface SettingsRow {
  local_printing_enabled: number;
  self_service_enabled: number;
  myprinters_enabled: number;
  pull_printing_enabled: number;
}

/** Reads and writes users' printing settings. */
export class PrintingUserRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** The settings of a user, or undefined for an unknown user. */
  settings(userId: string): PrintingSettings | undefined {
    const row = this.db
      .prepare(
        `SELECT local_printing_enabled, self_service_enabled, myprinters_enabled, pull_printing_enabled
         FROM users WHERE id = ?`,
      )
      .get(userId) as SettingsRow | undefined;
    if (!row) return undefined;
    return {
      localPrintingEnabled: row.local_printing_enabled === 1,
      selfServiceEnabled: row.self_service_enabled === 1,
      myprintersEnabled: row.myprinters_enabled === 1,
      pullPrintingEnabled: row.pull_printing_enabled === 1,
    };
  }

  /** Sets the switches given; the others stay. */
  update(userId: string, changes: Partial<PrintingSettings>): void {
    for (const [key, value] of Object.entries(changes)) {
      const column = COLUMNS[key as keyof PrintingSettings];
      if (column === undefined || value === undefined) continue;
      this.db.prepare(`UPDATE users SET ${column} = ? WHERE id = ?`).run(value ? 1 : 0, userId);
    }
  }
}
