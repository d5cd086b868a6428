/**
 * Connectors table: the agents registered by an organization, keyed by serial_string within
 * the organization. Borrowing the database handle; the owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { Connector, ConnectorRegistration } from '../../protocol/connector-channel.js';
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';

/** What a new connector row is made of: an agent's registration, or a built-in connector (type Virtual). */
export type NewConnector = Omit<ConnectorRegistration, 'type'> & { type: Connector['type'] };

/** Connector status values. */
export type ConnectorStatus = Connector['status'];

/** A stored connector. */
export interface ConnectorRecord {
  id: string;
  organizationId: string;
  serialString: string | null;
  readableName: string;
  description: string;
  type: Connector['type'];
  tpuid: number;
  status: ConnectorStatus;
  location: string | null;
  hostname: string;
  internalIp: string | null;
  externalIp: string | null;
  osType: Connector['os_type'];
  swVersion: string;
  managementUrl: string | null;
  supportedFormats: string;
  /** Who registered it: channel calls without X-Host-Id resolve the connector by these. */
  registeredUserId: string;
  registeredClientId: string;
  lastSeenOnline: number;
  lastPrinterUpdate: number;
  createdAt: number;
}

interface ConnectorRow {
  id: string;
  organization_id: string;
  serial_string: string | null;
  readable_name: string;
  description: string;
  type: string;
  tpuid: number;
  status: string;
  location: string | null;
  hostname: string;
  internal_ip: string | null;
  external_ip: string | null;
  os_type: string;
  sw_version: string;
  management_url: string | null;
  supported_formats: string;
  registered_user_id: string;
  registered_client_id: string;
  last_seen_online: number;
  last_printer_update: number;
  created_at: number;
}

function toRecord(r: ConnectorRow): ConnectorRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    serialString: r.serial_string,
    readableName: r.readable_name,
    description: r.description,
    type: r.type as ConnectorRecord['type'],
    tpuid: r.tpuid,
    status: r.status as ConnectorStatus,
    location: r.location,
    hostname: r.hostname,
    internalIp: r.internal_ip,
    externalIp: r.external_ip,
    osType: r.os_type as ConnectorRecord['osType'],
    swVersion: r.sw_version,
    managementUrl: r.management_url,
    supportedFormats: r.supported_formats,
    registeredUserId: r.registered_user_id,
    registeredClientId: r.registered_client_id,
    lastSeenOnline: r.last_seen_online,
    lastPrinterUpdate: r.last_printer_update,
    createdAt: r.created_at,
  };
}

/** Reads and writes connectors. */
export class ConnectorRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  findById(id: string): ConnectorRecord | undefined {
    const row = this.db.prepare('SELECT * FROM connectors WHERE id = ?').get(id) as ConnectorRow | undefined;
    return row && toRecord(row);
  }

  findBySerial(organizationId: string, serial: string): ConnectorRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM connectors WHERE organization_id = ? AND serial_string = ?')
      .get(organizationId, serial) as ConnectorRow | undefined;
    return row && toRecord(row);
  }

  /** True when another connector of the organization already uses `name`. */
  nameTaken(organizationId: string, name: string, exceptId: string | null): boolean {
    const row = this.db
      .prepare('SELECT id FROM connectors WHERE organization_id = ? AND readable_name = ? AND id IS NOT ?')
      .get(organizationId, name, exceptId);
    return row !== undefined;
  }

  listByOrganization(organizationId: string): ConnectorRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM connectors WHERE organization_id = ? ORDER BY created_at, id')
      .all(organizationId) as ConnectorRow[];
    return rows.map(toRecord);
  }

  /** The connectors registered by a user through a client, most recently seen first. */
  /** The connectors of one organization, or of every one (undefined), by name. */
  list(organizationId?: string): ConnectorRecord[] {
    const { clause, params } = organizationScope('organization_id', organizationId);
    const rows = this.db
      .prepare(`SELECT * FROM connectors ${clause} ORDER BY readable_name`)
      .all(...params) as ConnectorRow[];
    return rows.map(toRecord);
  }

  findByRegistrant(organizationId: string, userId: string, clientId: string): ConnectorRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM connectors WHERE organization_id = ? AND registered_user_id = ? AND registered_client_id = ?
         ORDER BY last_seen_online DESC, created_at DESC`,
      )
      .all(organizationId, userId, clientId) as ConnectorRow[];
    return rows.map(toRecord);
  }

  /** Inserts a new connector with the next free tpuid; `readableName` must already be unique. */
  insert(
    organizationId: string,
    reg: NewConnector,
    readableName: string,
    by: { userId: string; clientId: string },
    now: number,
  ): ConnectorRecord {
    const id = randomUUID();
    const tpuid = (
      this.db.prepare('SELECT COALESCE(MAX(tpuid), 0) + 1 AS n FROM connectors').get() as { n: number }
    ).n;
    this.db
      .prepare(
        `INSERT INTO connectors (id, organization_id, serial_string, readable_name, description, type, tpuid,
           status, location, hostname, internal_ip, external_ip, os_type, sw_version, management_url,
           supported_formats, registered_user_id, registered_client_id, last_seen_online, last_printer_update,
           created_at)
         VALUES (@id, @organizationId, @serial, @readableName, @description, @type, @tpuid, 'Online', @location,
           @hostname, @internalIp, @externalIp, @osType, @swVersion, @managementUrl, @supportedFormats,
           @userId, @clientId, @now, @now, @now)`,
      )
      .run({
        ...reportedFacts(reg, by, now),
        id,
        organizationId,
        serial: reg.serial_string,
        readableName,
        tpuid,
      });
    return this.findById(id)!;
  }

  /** Updates the reported facts and the registrant of a registered connector (the name is kept). */
  updateRegistration(
    id: string,
    reg: ConnectorRegistration,
    by: { userId: string; clientId: string },
    now: number,
  ): ConnectorRecord {
    this.db
      .prepare(
        `UPDATE connectors SET description = @description, type = @type, location = @location,
           hostname = @hostname, internal_ip = @internalIp, external_ip = @externalIp, os_type = @osType,
           sw_version = @swVersion, management_url = @managementUrl, supported_formats = @supportedFormats,
           registered_user_id = @userId, registered_client_id = @clientId, status = 'Online',
           last_seen_online = @now
         WHERE id = @id`,
      )
      .run({ ...reportedFacts(reg, by, now), id });
    return this.findById(id)!;
  }

  /** Records contact: status and last_seen_online. */
  touch(id: string, status: ConnectorStatus, now: number): void {
    this.db
      .prepare('UPDATE connectors SET status = ?, last_seen_online = ? WHERE id = ?')
      .run(status, now, id);
  }

  /** Sets the status only (for example Offline when the channel closes). */
  setStatus(id: string, status: ConnectorStatus): void {
    this.db.prepare('UPDATE connectors SET status = ? WHERE id = ?').run(status, id);
  }

  /** Records that the connector changed one of its printers. */
  touchPrinters(id: string, now: number): void {
    this.db.prepare('UPDATE connectors SET last_printer_update = ? WHERE id = ?').run(now, id);
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM connectors WHERE id = ?').run(id).changes === 1;
  }
}

/** The facts a registration reports, as named SQL parameters shared by insert and update. */
function reportedFacts(reg: NewConnector, by: { userId: string; clientId: string }, now: number) {
  return {
    description: reg.description ?? '',
    type: reg.type,
    location: reg.location ?? null,
    hostname: reg.hostname,
    internalIp: reg.internal_ip,
    externalIp: reg.external_ip,
    osType: reg.os_type,
    swVersion: reg.sw_version,
    managementUrl: reg.management_url ?? null,
    supportedFormats: reg.supported_formats,
    userId: by.userId,
    clientId: by.clientId,
    now,
  };
}
