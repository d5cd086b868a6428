/**
 * Pull-printing rows outside the held queue: each organization's queue printer (a printer on a
 * built-in connector of type Virtual that no agent ever claims), and the pull-printing password
 * hashes of printer_settings as the device authentication needs them. Borrowing the database
 * handle; the owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorDatabase } from '../store/database.js';

/** The queue printer of one organization. */
export interface PullQueueRecord {
  organizationId: string;
  connectorId: string;
  printerId: string;
}

/** A pull printer's stored password hash. */
export interface PullPasswordRow {
  organizationId: string;
  printerName: string;
  hash: string;
}

/** Name of every organization's queue printer (as /sfapi/GetPrinter shows it). */
export const PULL_QUEUE_PRINTER_NAME = 'Pull Printing';
/** Name of the built-in connector that owns the queue printers. */
export const PULL_QUEUE_CONNECTOR_NAME = 'PrintRelay pull-printing queue';

/** Reads and writes pull-printing queue and device rows. */
export class PullPrinterRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** The organization's queue, or undefined before ensureQueue. */
  queue(organizationId: string): PullQueueRecord | undefined {
    const row = this.db
      .prepare('SELECT organization_id, connector_id, printer_id FROM pull_queues WHERE organization_id = ?')
      .get(organizationId) as
      | { organization_id: string; connector_id: string; printer_id: string }
      | undefined;
    return (
      row && { organizationId: row.organization_id, connectorId: row.connector_id, printerId: row.printer_id }
    );
  }

  /** True when the printer id is some organization's queue printer. */
  isQueuePrinter(printerId: string): boolean {
    return this.db.prepare('SELECT 1 FROM pull_queues WHERE printer_id = ?').get(printerId) !== undefined;
  }

  /** Creates the queue's connector and printer when missing (one transaction); returns the queue. */
  ensureQueue(organizationId: string, now: number): PullQueueRecord {
    return this.db.transaction(() => {
      const existing = this.queue(organizationId);
      if (existing) return existing;
      const connectorId = this.insertConnector(organizationId, now);
      const printerId = randomUUID();
      this.db
        .prepare(
          `INSERT INTO printers (id, organization_id, connector_id, name, status, tp_id, supported_formats,
             vendor_name, model_name, location, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'Online', 1, ?, 'PrintRelay', 'Pull-printing queue', '', ?, ?)`,
        )
        .run(
          printerId,
          organizationId,
          connectorId,
          PULL_QUEUE_PRINTER_NAME,
          JSON.stringify(['PDF', 'XPS', 'RAW']),
          now,
          now,
        );
      this.db
        .prepare('INSERT INTO pull_queues (organization_id, connector_id, printer_id) VALUES (?, ?, ?)')
        .run(organizationId, connectorId, printerId);
      return { organizationId, connectorId, printerId };
    })();
  }

  /** Every pull printer's password hash (all organizations). */
  passwordRows(): PullPasswordRow[] {
    const rows = this.db
      .prepare(
        `SELECT organization_id, printer_name, pull_printing_password_hash AS h FROM printer_settings
         WHERE pull_printing_password_hash IS NOT NULL ORDER BY organization_id, printer_name`,
      )
      .all() as { organization_id: string; printer_name: string; h: string }[];
    return rows.map((r) => ({ organizationId: r.organization_id, printerName: r.printer_name, hash: r.h }));
  }

  private insertConnector(organizationId: string, now: number): string {
    const id = randomUUID();
    const tpuid = (
      this.db.prepare('SELECT COALESCE(MAX(tpuid), 0) + 1 AS n FROM connectors').get() as { n: number }
    ).n;
    this.db
      .prepare(
        `INSERT INTO connectors (id, organization_id, serial_string, readable_name, description, type, tpuid,
           status, hostname, os_type, sw_version, supported_formats, registered_user_id, registered_client_id,
           last_seen_online, last_printer_update, created_at)
         VALUES (?, ?, ?, ?, ?, 'Virtual', ?, 'Online', 'cloud', 'Linux', ?, 'PDF,XPS,RAW', '', '', ?, ?, ?)`,
      )
      .run(
        id,
        organizationId,
        `printrelay-pull-queue-${organizationId}`,
        PULL_QUEUE_CONNECTOR_NAME,
        'Holds jobs printed to "Pull Printing" until a release device prints them.',
        tpuid,
        '1',
        now,
        now,
        now,
      );
    return id;
  }
}
