/**
 * Printer settings table: what the organization admin set for a printer name before (or after)
 * a connector registers it, such as the pull-printing password (scrypt-hashed). Borrowing the
 * database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/** A pull printer's stored password hash. */
export interface PullPasswordRow {
  organizationId: string;
  printerName: string;
  hash: string;
}

/** Reads and writes per-printer-name settings. */
export class PrinterSettingsRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Sets (or clears with null) the pull-printing password hash (SecretHasher.hash) of a printer name. */
  setPullPrintingPasswordHash(organizationId: string, printerName: string, hash: string | null): void {
    this.db
      .prepare(
        `INSERT INTO printer_settings (organization_id, printer_name, pull_printing_password_hash) VALUES (?, ?, ?)
         ON CONFLICT (organization_id, printer_name) DO UPDATE SET
           pull_printing_password_hash = excluded.pull_printing_password_hash`,
      )
      .run(organizationId, printerName, hash);
  }

  /** True when the printer name is a pull printer of the organization. */
  isPullPrinter(organizationId: string, printerName: string): boolean {
    return this.passwordHash(organizationId, printerName) !== null;
  }

  /** The names of the organization's pull printers. */
  pullPrinterNames(organizationId: string): string[] {
    const rows = this.db
      .prepare(
        'SELECT printer_name FROM printer_settings WHERE organization_id = ? AND pull_printing_password_hash IS NOT NULL',
      )
      .all(organizationId) as { printer_name: string }[];
    return rows.map((r) => r.printer_name);
  }

  /** Every pull printer's password hash (all organizations), by organization and name, one query. */
  passwordRows(): PullPasswordRow[] {
    const rows = this.db
      .prepare(
        `SELECT organization_id, printer_name, pull_printing_password_hash AS h FROM printer_settings
         WHERE pull_printing_password_hash IS NOT NULL ORDER BY organization_id, printer_name`,
      )
      .all() as { organization_id: string; printer_name: string; h: string }[];
    return rows.map((r) => ({ organizationId: r.organization_id, printerName: r.printer_name, hash: r.h }));
  }

  /** The pull-printing password hash of one printer name; null when it has none. */
  passwordHash(organizationId: string, printerName: string): string | null {
    const row = this.db
      .prepare(
        'SELECT pull_printing_password_hash AS h FROM printer_settings WHERE organization_id = ? AND printer_name = ?',
      )
      .get(organizationId, printerName) as { h: string | null } | undefined;
    return row?.h ?? null;
  }
}
