/**
 * Driver assignment states per printer (auto_driver_assignment_state). How many printers of an
 * organization use each driver is the printers' own count (printers-face DriverUsageReader). The
 * catalog itself is data (drivers/printers/), not a table.
 * Rows go with their printer (ON DELETE CASCADE). Borrowing the database handle; the owner of the
 * handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/** Reads and writes driver assignment states. */
export class DriverRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** The stored state of a printer, or undefined before the first assignment. */
  state(printerId: string): string | undefined {
    const row = this.db
      .prepare('SELECT state FROM printer_driver_states WHERE printer_id = ?')
      .get(printerId) as { state: string } | undefined;
    return row?.state;
  }

  /** Records the state of the printer's latest assignment. */
  setState(printerId: string, state: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO printer_driver_states (printer_id, state, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (printer_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      )
      .run(printerId, state, now);
  }
}
