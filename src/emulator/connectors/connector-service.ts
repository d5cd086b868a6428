/**
 * ConnectorService: registration of connectors (idempotent by serial_string within the
 * organization, readable_name made unique), their online state, and which connector a channel
 * call comes from (X-Host-Id, else the connector the caller's user and client registered).
 * No resources to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { Connector } from '../../protocol/connector-channel.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { ConnectorRecord } from './connector-repo.js';
import type { EmulatorStore } from '../emulator-store.js';
import { parseRegistration, uniqueName } from './connector-rules.js';

/** Contact within this many ms of the last recorded contact is not written again. */
export const SEEN_WRITE_INTERVAL_MS = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The connector resource as the wire shows it. */
export function connectorToWire(c: ConnectorRecord): Connector {
  return {
    id: c.id,
    readable_name: c.readableName,
    description: c.description,
    type: c.type,
    tpuid: c.tpuid,
    status: c.status,
    location: c.location,
    hostname: c.hostname,
    internal_ip: c.internalIp,
    external_ip: c.externalIp,
    os_type: c.osType,
    sw_version: c.swVersion,
    last_seen_online: new Date(c.lastSeenOnline).toISOString(),
    last_printer_update: new Date(c.lastPrinterUpdate).toISOString(),
    organization_id: c.organizationId,
    management_url: c.managementUrl,
    serial_string: c.serialString,
    supported_formats: c.supportedFormats,
  };
}

/** Registers connectors and tracks their contact. */
export class ConnectorService {
  /** When seen() last wrote, per connector id. */
  private readonly lastRecorded = new Map<string, number>();

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Registers or re-registers (same serial_string) a connector; `created` tells which. */
  register(auth: AuthContext, body: unknown): { connector: ConnectorRecord; created: boolean } {
    const reg = parseRegistration(body);
    const by = { userId: auth.userId, clientId: auth.clientId };
    const now = this.clock.now();
    return this.store.transaction(() => {
      const existing = this.store.connectors.findBySerial(auth.organizationId, reg.serial_string);
      if (existing) {
        return {
          connector: this.store.connectors.updateRegistration(existing.id, reg, by, now),
          created: false,
        };
      }
      const name = uniqueName(reg.readable_name, (n) =>
        this.store.connectors.nameTaken(auth.organizationId, n, null),
      );
      const connector = this.store.connectors.insert(auth.organizationId, reg, name, by, now);
      this.logger.info({ connector: connector.id, name }, 'connector registered');
      return { connector, created: true };
    });
  }

  /** A connector of the organization, or NotFoundError. */
  require(orgId: string, id: string): ConnectorRecord {
    const connector = UUID.test(id) ? this.store.connectors.findById(id.toLowerCase()) : undefined;
    if (!connector || connector.organizationId !== orgId) throw new NotFoundError(`connector ${id}`);
    return connector;
  }

  /**
   * The connector a channel call comes from: the X-Host-Id header when sent (a connector of the
   * caller's organization), else the most recently seen connector registered by the caller's
   * user and client. NotFoundError when there is none (register first).
   */
  resolveCaller(auth: AuthContext, hostId: string | undefined): ConnectorRecord {
    if (hostId !== undefined && hostId !== '') {
      if (!UUID.test(hostId)) throw new ValidationError('X-Host-Id', 'must be a UUID');
      return this.require(auth.organizationId, hostId);
    }
    const [latest] = this.store.connectors.findByRegistrant(auth.organizationId, auth.userId, auth.clientId);
    if (!latest) throw new NotFoundError('connector of this caller (register first)');
    return latest;
  }

  /**
   * Records contact: status Online and last_seen_online now. A connector calls many times a
   * second under load; one write per second of contact says the same, so calls within
   * SEEN_WRITE_INTERVAL_MS of the last recorded one are not written again.
   */
  seen(id: string): void {
    const now = this.clock.now();
    const last = this.lastRecorded.get(id);
    if (last !== undefined && now >= last && now - last < SEEN_WRITE_INTERVAL_MS) return;
    this.store.connectors.touch(id, 'Online', now);
    this.lastRecorded.set(id, now);
  }

  /** Marks the connector Offline (its channel closed and no polls arrive). */
  offline(id: string): void {
    this.lastRecorded.delete(id);
    this.store.connectors.setStatus(id, 'Offline');
  }
}
