/**
 * Printers table: printers registered by connectors, with the properties JSON the connector
 * uploaded. Validation lives in services/printer-rules.ts; this file only stores. Borrowing the
 * database handle; the owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { PrinterCapabilityProperties } from '../../protocol/printer-properties.js';
import { USABLE_BY_USER_SQL } from '../groups/groups-face.js';
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';

/** Printer status values (admin spec). */
export type PrinterStatus = 'Online' | 'Offline' | 'Inproperly Configured';

/** A stored printer. */
export interface PrinterRecord {
  id: string;
  organizationId: string;
  connectorId: string;
  name: string;
  status: PrinterStatus;
  tpId: number;
  supportedFormats: string[];
  vendorName: string;
  modelName: string;
  location: string;
  pnpId: string;
  driverId: string | null;
  manualDriverId: string | null;
  properties: PrinterCapabilityProperties | null;
  createdAt: number;
  updatedAt: number;
}

/** A printer as a list shows it: no properties, only whether the connector uploaded them. */
export type PrinterSummary = Pick<
  PrinterRecord,
  | 'id'
  | 'organizationId'
  | 'connectorId'
  | 'name'
  | 'status'
  | 'supportedFormats'
  | 'vendorName'
  | 'modelName'
> & { hasCapabilities: boolean };

/** The writable fields of a printer. */
export type PrinterFields = Pick<
  PrinterRecord,
  | 'connectorId'
  | 'name'
  | 'status'
  | 'tpId'
  | 'supportedFormats'
  | 'vendorName'
  | 'modelName'
  | 'location'
  | 'pnpId'
  | 'driverId'
  | 'manualDriverId'
>;

interface PrinterRow {
  id: string;
  organization_id: string;
  connector_id: string;
  name: string;
  status: string;
  tp_id: number;
  supported_formats: string;
  vendor_name: string;
  model_name: string;
  location: string;
  pnp_id: string;
  driver_id: string | null;
  manual_driver_id: string | null;
  properties_json: string | null;
  created_at: number;
  updated_at: number;
}

function toRecord(r: PrinterRow): PrinterRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    connectorId: r.connector_id,
    name: r.name,
    status: r.status as PrinterStatus,
    tpId: r.tp_id,
    supportedFormats: JSON.parse(r.supported_formats) as string[],
    vendorName: r.vendor_name,
    modelName: r.model_name,
    location: r.location,
    pnpId: r.pnp_id,
    driverId: r.driver_id,
    manualDriverId: r.manual_driver_id,
    properties:
      r.properties_json === null ? null : (JSON.parse(r.properties_json) as PrinterCapabilityProperties),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Filter and page of a printer listing. */
export interface PrinterQuery {
  organizationId: string;
  connectorId?: string;
  /** Only printers this user may use (null: a caller without a user); see assignment-repo.ts. */
  usableBy?: { userId: string | null };
  limit: number;
  offset: number;
}

/** Reads and writes printers. */
export class PrinterRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  findById(id: string): PrinterRecord | undefined {
    const row = this.db.prepare('SELECT * FROM printers WHERE id = ?').get(id) as PrinterRow | undefined;
    return row && toRecord(row);
  }

  findByName(organizationId: string, name: string): PrinterRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM printers WHERE organization_id = ? AND name = ?')
      .get(organizationId, name) as PrinterRow | undefined;
    return row && toRecord(row);
  }

  /**
   * A printer of the organization by name ignoring ASCII case (the /TPFM/ rule, docs/tpfm.md):
   * the exact spelling wins when two names differ only in case, else the oldest.
   */
  findByNameIgnoringCase(organizationId: string, name: string): PrinterRecord | undefined {
    const row = this.db
      .prepare(
        `SELECT * FROM printers WHERE organization_id = ? AND name = ? COLLATE NOCASE
           ORDER BY name = ? DESC, created_at, id LIMIT 1`,
      )
      .get(organizationId, name, name) as PrinterRow | undefined;
    return row && toRecord(row);
  }

  findByTpId(connectorId: string, tpId: number): PrinterRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM printers WHERE connector_id = ? AND tp_id = ?')
      .get(connectorId, tpId) as PrinterRow | undefined;
    return row && toRecord(row);
  }

  /** Every printer of an organization, by name. */
  listByOrganization(organizationId: string): PrinterRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM printers WHERE organization_id = ? ORDER BY name, id')
      .all(organizationId) as PrinterRow[];
    return rows.map(toRecord);
  }

  /** Printers of the organization per driver id (drivers without printers are absent), one query. */
  driverUsage(organizationId: string): Map<string, number> {
    const rows = this.db
      .prepare(
        `SELECT driver_id AS id, COUNT(*) AS n FROM printers
         WHERE organization_id = ? AND driver_id IS NOT NULL GROUP BY driver_id`,
      )
      .all(organizationId) as { id: string; n: number }[];
    return new Map(rows.map((r) => [r.id, r.n]));
  }

  /** The printers of one organization, or of every one (undefined), by name, as summaries. */
  summaries(organizationId?: string): PrinterSummary[] {
    const { clause, params } = organizationScope('organization_id', organizationId);
    const rows = this.db
      .prepare(
        `SELECT id, organization_id, connector_id, name, status, supported_formats, vendor_name, model_name,
           properties_json IS NOT NULL AS has_capabilities FROM printers ${clause} ORDER BY name`,
      )
      .all(...params) as (Omit<PrinterRow, 'properties_json'> & { has_capabilities: number })[];
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      connectorId: r.connector_id,
      name: r.name,
      status: r.status as PrinterStatus,
      supportedFormats: JSON.parse(r.supported_formats) as string[],
      vendorName: r.vendor_name,
      modelName: r.model_name,
      hasCapabilities: r.has_capabilities === 1,
    }));
  }

  /** One page of printers and the total count. */
  page(query: PrinterQuery): { count: number; rows: PrinterRecord[] } {
    const conditions = ['organization_id = ?'];
    const args: (string | null)[] = [query.organizationId];
    if (query.connectorId !== undefined) {
      conditions.push('connector_id = ?');
      args.push(query.connectorId);
    }
    if (query.usableBy !== undefined) {
      conditions.push(USABLE_BY_USER_SQL);
      args.push(query.usableBy.userId);
    }
    const where = conditions.join(' AND ');
    const count = (
      this.db.prepare(`SELECT COUNT(*) AS n FROM printers WHERE ${where}`).get(...args) as { n: number }
    ).n;
    const rows = this.db
      .prepare(`SELECT * FROM printers WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`)
      .all(...args, query.limit, query.offset) as PrinterRow[];
    return { count, rows: rows.map(toRecord) };
  }

  /** The next tp_id of a connector: one above the highest, or the lowest gap once the top is taken. */
  nextTpId(connectorId: string, max: number): number {
    const top = (
      this.db
        .prepare('SELECT COALESCE(MAX(tp_id), 0) AS n FROM printers WHERE connector_id = ?')
        .get(connectorId) as {
        n: number;
      }
    ).n;
    if (top < max) return top + 1;
    const gap = this.db
      .prepare(
        `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM printers WHERE connector_id = @c AND tp_id = 1) THEN 1
           ELSE (SELECT MIN(p.tp_id + 1) FROM printers p WHERE p.connector_id = @c AND NOT EXISTS
             (SELECT 1 FROM printers q WHERE q.connector_id = @c AND q.tp_id = p.tp_id + 1)) END AS n`,
      )
      .get({ c: connectorId }) as { n: number };
    return gap.n;
  }

  insert(organizationId: string, fields: PrinterFields, now: number): PrinterRecord {
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO printers (id, organization_id, connector_id, name, status, tp_id, supported_formats,
           vendor_name, model_name, location, pnp_id, driver_id, manual_driver_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, organizationId, ...fieldValues(fields), now, now);
    return this.findById(id)!;
  }

  update(id: string, fields: PrinterFields, now: number): PrinterRecord {
    this.db
      .prepare(
        `UPDATE printers SET connector_id = ?, name = ?, status = ?, tp_id = ?, supported_formats = ?,
           vendor_name = ?, model_name = ?, location = ?, pnp_id = ?, driver_id = ?, manual_driver_id = ?,
           updated_at = ? WHERE id = ?`,
      )
      .run(...fieldValues(fields), now, id);
    return this.findById(id)!;
  }

  /** Stores the properties the connector computed for the printer. */
  setProperties(id: string, properties: PrinterCapabilityProperties, now: number): void {
    this.db
      .prepare(
        'UPDATE printers SET properties_json = ?, properties_updated_at = ?, updated_at = ? WHERE id = ?',
      )
      .run(JSON.stringify(properties), now, now, id);
  }

  /** Sets the status of one printer. */
  setStatus(id: string, status: PrinterStatus, now: number): void {
    this.db.prepare('UPDATE printers SET status = ?, updated_at = ? WHERE id = ?').run(status, now, id);
  }

  /** Sets the status of every printer of a connector (Offline when it disconnects). */
  setStatusByConnector(connectorId: string, status: PrinterStatus, now: number): void {
    this.db
      .prepare('UPDATE printers SET status = ?, updated_at = ? WHERE connector_id = ?')
      .run(status, now, connectorId);
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM printers WHERE id = ?').run(id).changes === 1;
  }
}

function fieldValues(f: PrinterFields): (string | number | null)[] {
  return [
    f.connectorId,
    f.name,
    f.status,
    f.tpId,
    JSON.stringify(f.supportedFormats),
    f.vendorName,
    f.modelName,
    f.location,
    f.pnpId,
    f.driverId,
    f.manualDriverId,
  ];
}
