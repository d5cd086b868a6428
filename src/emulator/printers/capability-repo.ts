/**
 * Printer capabilities table: per printer the blob capability defaults the connector uploaded,
 * the admin's custom values per capability, and the admin's simplified customizations (tray
 * names, enabled flags, color off). Rows go with their printer (ON DELETE CASCADE). Borrowing
 * the database handle; the owner of the handle closes it.
 */
import type { BlobCapabilities } from '../../protocol/blob-capabilities.js';
import type { CustomCapabilities, SimplifiedCustom } from '../../protocol/capability-merge.js';
import type { EmulatorDatabase } from '../store/database.js';

/** What is stored for one printer. */
export interface CapabilityRecord {
  printerId: string;
  /** Uploaded by the connector; null before the first upload. */
  defaults: BlobCapabilities | null;
  custom: CustomCapabilities;
  simplified: SimplifiedCustom;
  updatedAt: number;
}

interface CapabilityRow {
  printer_id: string;
  defaults_json: string | null;
  custom_json: string;
  simplified_json: string;
  updated_at: number;
}

/** Reads and writes printer capabilities. */
export class CapabilityRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** The stored record, or an empty one (no defaults, no customs) when nothing was stored. */
  get(printerId: string): CapabilityRecord {
    const row = this.db.prepare('SELECT * FROM printer_capabilities WHERE printer_id = ?').get(printerId) as
      | CapabilityRow
      | undefined;
    if (!row) return { printerId, defaults: null, custom: {}, simplified: {}, updatedAt: 0 };
    return {
      printerId,
      defaults: row.defaults_json === null ? null : (JSON.parse(row.defaults_json) as BlobCapabilities),
      custom: JSON.parse(row.custom_json) as CustomCapabilities,
      simplified: JSON.parse(row.simplified_json) as SimplifiedCustom,
      updatedAt: row.updated_at,
    };
  }

  /** Replaces the defaults (the connector's upload). */
  setDefaults(printerId: string, defaults: BlobCapabilities, now: number): void {
    this.upsert(printerId, 'defaults_json', JSON.stringify(defaults), now);
  }

  /** Replaces the custom values. */
  setCustom(printerId: string, custom: CustomCapabilities, now: number): void {
    this.upsert(printerId, 'custom_json', JSON.stringify(custom), now);
  }

  /** Replaces the simplified customizations. */
  setSimplified(printerId: string, simplified: SimplifiedCustom, now: number): void {
    this.upsert(printerId, 'simplified_json', JSON.stringify(simplified), now);
  }

  private upsert(
    printerId: string,
    column: 'defaults_json' | 'custom_json' | 'simplified_json',
    json: string,
    now: number,
  ): void {
    this.db
      .prepare(
        `INSERT INTO printer_capabilities (printer_id, ${column}, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (printer_id) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      )
      .run(printerId, json, now);
  }
}
