/**
 * PrinterService: the printers of an organization as connectors register them (admin spec
 * printer endpoints and rules) and as apps see them (/sfapi/ GetPrinter, GetPrinterProperties).
 * Validation is pure (printer-rules.ts); uniqueness of name and tp_id is checked here. No
 * resources to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { NotFoundError, ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterCapabilityProperties, PrinterProperties } from '../../protocol/printer-properties.js';
import type { ConnectorPrinterRecords } from '../connectors/connectors-face.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { PrinterFields, PrinterRecord } from './printer-repo.js';
import { PRINTER_INPUT_FORMATS, type PrinterInput, TP_ID_MAX, parsePrinterInput } from './printer-rules.js';
import type { AutoDriverAssignmentState } from '../drivers/driver-assignment.js';
import type { DriverAssignmentService } from '../drivers/driver-assignment-service.js';
import { printerProperties } from './printer-wire.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Optional parts a PrinterService works with (app.ts passes both). */
export interface PrinterServiceParts {
  /** Checks manual drivers and assigns catalog drivers on create and update. */
  drivers?: DriverAssignmentService;
  /** The merged GetPrinterProperties element (admin customizations applied). */
  capabilities?: { properties(printer: PrinterRecord): PrinterProperties };
}

/** Reads and changes printers. */
export class PrinterService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly connectors: ConnectorPrinterRecords,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly parts: PrinterServiceParts = {},
  ) {}

  /** Every printer of the organization, by name. */
  list(orgId: string): PrinterRecord[] {
    return this.store.printers.listByOrganization(orgId);
  }

  /** The printer when it exists in the organization. */
  findById(orgId: string, id: string): PrinterRecord | undefined {
    const printer = this.store.printers.findById(id.toLowerCase());
    return printer?.organizationId === orgId ? printer : undefined;
  }

  findByName(orgId: string, name: string): PrinterRecord | undefined {
    return this.store.printers.findByName(orgId, name);
  }

  /**
   * GetPrinterProperties element: uploaded properties (or defaults) with Id, Name, Location,
   * TPUID, and the admin's customizations when a capability service is given.
   */
  properties(orgId: string, id: string): PrinterProperties | undefined {
    const printer = this.findById(orgId, id);
    if (!printer) return undefined;
    return this.parts.capabilities ? this.parts.capabilities.properties(printer) : printerProperties(printer);
  }

  /** One page of printers, optionally of one connector. */
  page(
    orgId: string,
    query: { limit: number; offset: number; connectorId?: string; usableBy?: { userId: string | null } },
  ): { count: number; rows: PrinterRecord[] } {
    return this.store.printers.page({ organizationId: orgId, ...query });
  }

  /** POST: creates a printer on the connector named by X-Host-Id. */
  create(orgId: string, hostId: string | undefined, body: unknown): PrinterRecord {
    const connectorId = this.requireHost(orgId, hostId);
    const input = parsePrinterInput(body, 'create');
    if (input.connectorId !== undefined && input.connectorId !== connectorId) {
      throw new ValidationError('connector_id', 'must equal the X-Host-Id header on create');
    }
    if (input.driverId) this.parts.drivers?.requireDriver(input.driverId);
    return this.store.transaction(() => {
      const connector = this.connectors.findById(connectorId)!;
      const fields: PrinterFields = {
        connectorId,
        name: input.name!,
        status: input.status!,
        tpId: input.tpId ?? this.store.printers.nextTpId(connectorId, TP_ID_MAX),
        supportedFormats: input.supportedFormats ?? defaultFormats(connector.supportedFormats),
        vendorName: input.vendorName ?? '',
        modelName: input.modelName ?? '',
        location: input.location ?? '',
        pnpId: input.pnpId ?? '',
        driverId: input.driverId ?? null,
        manualDriverId: input.driverId ?? null,
      };
      this.checkUnique(orgId, fields, null);
      const state = this.assignDriver(fields);
      const printer = this.store.printers.insert(orgId, fields, this.clock.now());
      if (state) this.parts.drivers?.record(printer, state);
      this.connectors.touchPrinters(connectorId, this.clock.now());
      this.logger.info({ printer: printer.name, connector: connectorId }, 'printer created');
      return printer;
    });
  }

  /** PUT (replace) or PATCH (only what is sent). */
  update(orgId: string, id: string, body: unknown, mode: 'replace' | 'patch'): PrinterRecord {
    const input = parsePrinterInput(body, mode);
    if (input.driverId) this.parts.drivers?.requireDriver(input.driverId);
    return this.store.transaction(() => {
      const current = this.require(orgId, id);
      if (input.connectorId !== undefined) this.requireConnector(orgId, input.connectorId, 'connector_id');
      // Echoing the automatically assigned driver (a GET object sent back) does not make it manual.
      if (this.parts.drivers && input.driverId === current.driverId && current.manualDriverId === null)
        delete input.driverId;
      const fields = mode === 'replace' ? replaced(current, input) : patched(current, input);
      this.checkUnique(orgId, fields, current.id);
      const state = this.assignDriver(fields);
      const printer = this.store.printers.update(current.id, fields, this.clock.now());
      if (state) this.parts.drivers?.record(printer, state);
      this.connectors.touchPrinters(printer.connectorId, this.clock.now());
      return printer;
    });
  }

  /** DELETE; false when it did not exist in the organization. */
  remove(orgId: string, id: string): void {
    const printer = this.require(orgId, id);
    this.store.printers.delete(printer.id);
    this.connectors.touchPrinters(printer.connectorId, this.clock.now());
    this.logger.info({ printer: printer.name }, 'printer deleted');
  }

  /** Stores the properties the connector computed for one of its printers. */
  uploadProperties(orgId: string, id: string, properties: PrinterCapabilityProperties): void {
    const printer = this.require(orgId, id);
    this.store.printers.setProperties(printer.id, properties, this.clock.now());
    this.connectors.touchPrinters(printer.connectorId, this.clock.now());
  }

  /** A status report of the connector's channel; printers of other connectors are ignored. */
  setStatusFromConnector(
    connector: { id: string; organizationId: string },
    printerId: string,
    status: unknown,
  ): boolean {
    if (status !== 'Online' && status !== 'Offline') return false;
    const printer =
      typeof printerId === 'string' ? this.findById(connector.organizationId, printerId) : undefined;
    if (!printer || printer.connectorId !== connector.id) return false;
    this.store.printers.setStatus(printer.id, status, this.clock.now());
    return true;
  }

  /** The printer or NotFoundError. */
  require(orgId: string, id: string): PrinterRecord {
    const printer = this.findById(orgId, id);
    if (!printer) throw new NotFoundError(`printer ${id}`);
    return printer;
  }

  /** Sets fields.driverId from the manual driver or the catalog; the state to record, if assigning. */
  private assignDriver(fields: PrinterFields): AutoDriverAssignmentState | undefined {
    const drivers = this.parts.drivers;
    if (!drivers) return undefined;
    const os = this.connectors.findById(fields.connectorId)?.osType ?? '';
    const assignment = drivers.assign(fields, os);
    fields.driverId = assignment.driverId;
    return assignment.state;
  }

  private requireHost(orgId: string, hostId: string | undefined): string {
    if (hostId === undefined || hostId === '')
      throw new ValidationError('X-Host-Id', 'header required: the connector id');
    return this.requireConnector(orgId, hostId, 'X-Host-Id');
  }

  private requireConnector(orgId: string, id: string, field: string): string {
    if (!UUID.test(id)) throw new ValidationError(field, 'must be a UUID');
    const connector = this.connectors.findById(id.toLowerCase());
    if (!connector || connector.organizationId !== orgId) throw new NotFoundError(`connector ${id}`);
    return connector.id;
  }

  private checkUnique(orgId: string, f: PrinterFields, selfId: string | null): void {
    const errors: ValidationError[] = [];
    const byName = this.store.printers.findByName(orgId, f.name);
    if (byName && byName.id !== selfId)
      errors.push(new ValidationError('name', 'must be unique: another printer has it'));
    const byTp = this.store.printers.findByTpId(f.connectorId, f.tpId);
    if (byTp && byTp.id !== selfId) errors.push(new ValidationError('tp_id', 'must be unique per connector'));
    if (errors.length > 0) throw new ValidationErrors(errors);
  }
}

function defaultFormats(connectorFormats: string): string[] {
  const offered = connectorFormats.split(',').map((f) => f.trim().toUpperCase());
  return PRINTER_INPUT_FORMATS.filter((f) => offered.includes(f));
}

function replaced(current: PrinterRecord, i: PrinterInput): PrinterFields {
  return {
    connectorId: i.connectorId!,
    name: i.name!,
    status: i.status!,
    tpId: i.tpId ?? current.tpId,
    supportedFormats: i.supportedFormats ?? [],
    vendorName: i.vendorName ?? '',
    modelName: i.modelName ?? '',
    location: i.location ?? '',
    pnpId: i.pnpId ?? '',
    driverId: i.driverId ?? null,
    manualDriverId: i.driverId ?? null,
  };
}

function patched(current: PrinterRecord, i: PrinterInput): PrinterFields {
  return {
    connectorId: i.connectorId ?? current.connectorId,
    name: i.name ?? current.name,
    status: i.status ?? current.status,
    tpId: i.tpId ?? current.tpId,
    supportedFormats: i.supportedFormats ?? current.supportedFormats,
    vendorName: i.vendorName ?? current.vendorName,
    modelName: i.modelName ?? current.modelName,
    location: i.location ?? current.location,
    pnpId: i.pnpId ?? current.pnpId,
    driverId: i.driverId !== undefined ? i.driverId : current.driverId,
    manualDriverId: i.driverId !== undefined ? i.driverId : current.manualDriverId,
  };
}
