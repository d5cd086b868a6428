/**
 * Pull-printing rows outside the held queue: each organization's queue printer (a printer on a
 * built-in connector of type Virtual that no agent ever claims). The pull-printing password
 * hashes are the printers' own (printers-face PullPasswordReader). Borrowing the database
 * handle; the owner of the handle closes it.
 */
import type { ConnectorInserter, NewConnector } from '../../connectors/connectors-face.js';
import type { PrinterInserter } from '../../printers/printers-face.js';
import type { EmulatorDatabase } from '../../store/database.js';

/** The queue printer of one organization. */
export interface PullQueueRecord {
  organizationId: string;
  connectorId: string;
  printerId: string;
}

/** Name of every organization's queue printer (as /sfapi/GetPrinter shows it). */
export const PULL_QUEUE_PRINTER_NAME = 'Pull Printing';
/** Name of the built-in connector that owns the queue printers. */
export const PULL_QUEUE_CONNECTOR_NAME = 'PrintRelay pull-printing queue';

/** The built-in connector that owns an organization's queue printer. */
function queueConnector(organizationId: string): NewConnector {
  return {
    serial_string: `printrelay-pull-queue-${organizationId}`,
    type: 'Virtual',
    readable_name: PULL_QUEUE_CONNECTOR_NAME,
    description: 'Holds jobs printed to "Pull Printing" until a release device prints them.',
    hostname: 'cloud',
    internal_ip: null,
    external_ip: null,
    os_type: 'Linux',
    sw_version: '1',
    supported_formats: 'PDF,XPS,RAW',
  };
}

/** The queue's connector was registered by no user or client. */
const NO_REGISTRANT = { userId: '', clientId: '' };

/**
 * Reads and writes pull-printing queue and device rows. The queue's connector and printer rows are
 * written by their own repositories (the connectors' and printers' inserts, lent by the caller),
 * the one writer of each table.
 */
export class PullPrinterRepo {
  constructor(
    private readonly db: EmulatorDatabase,
    private readonly connectors: ConnectorInserter,
    private readonly printers: PrinterInserter,
  ) {}

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
      const connectorId = this.connectors.insert(
        organizationId,
        queueConnector(organizationId),
        PULL_QUEUE_CONNECTOR_NAME,
        NO_REGISTRANT,
        now,
      ).id;
      const printerId = this.printers.insert(
        organizationId,
        {
          connectorId,
          name: PULL_QUEUE_PRINTER_NAME,
          status: 'Online',
          tpId: 1,
          supportedFormats: ['PDF', 'XPS', 'RAW'],
          vendorName: 'PrintRelay',
          modelName: 'Pull-printing queue',
          location: '',
          pnpId: '',
          driverId: null,
          manualDriverId: null,
        },
        now,
      ).id;
      this.db
        .prepare('INSERT INTO pull_queues (organization_id, connector_id, printer_id) VALUES (?, ?, ?)')
        .run(organizationId, connectorId, printerId);
      return { organizationId, connectorId, printerId };
    })();
  }
}
