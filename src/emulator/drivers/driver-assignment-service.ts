/**
 * DriverAssignmentService: checks a manual driver_id against the catalog, assigns a catalog
 * driver automatically when a printer is created or updated (pure rules in driver-assignment.ts),
 * remembers auto_driver_assignment_state per printer, and shows the catalog as the spec's Driver
 * objects with printers_using_driver. No resources to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type EncodedBlobCapabilities, encodeBlobCapabilities } from '../../protocol/capability-merge.js';
import { DriverRepo } from './driver-repo.js';
import type { EmulatorDatabase } from '../store/database.js';
import type { DriverUsageReader, PrinterFields, PrinterRecord } from '../printers/printers-face.js';
import { type AutoDriverAssignmentState, type DriverAssignment, assignDriver } from './driver-assignment.js';
import type { CatalogDriver, DriverCatalog } from './driver-catalog.js';

/** The spec's Driver object. */
export interface DriverWire {
  id: string;
  name: string;
  readable_name: string;
  vendor: string;
  os: CatalogDriver['os'];
  arch: string;
  printers_using_driver: number;
  blob_capabilities: EncodedBlobCapabilities;
}

/**
 * The service over `db`'s driver states, with its own repository; the printers' per-driver count
 * comes from the printers domain (`printers`).
 */
export function driverAssignmentOver(
  catalog: DriverCatalog,
  db: EmulatorDatabase,
  printers: DriverUsageReader,
  clock: Clock,
  logger: Logger,
): DriverAssignmentService {
  return new DriverAssignmentService(catalog, new DriverRepo(db), printers, clock, logger);
}

/** Assigns drivers and serves the catalog. */
export class DriverAssignmentService {
  constructor(
    private readonly catalog: DriverCatalog,
    private readonly repo: DriverRepo,
    private readonly printers: DriverUsageReader,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Throws a ValidationError naming driver_id when it is not a driver of the catalog. */
  requireDriver(driverId: string): CatalogDriver {
    const driver = this.catalog.findById(driverId);
    if (!driver) {
      throw new ValidationError(
        'driver_id',
        'must be the id of a catalog driver (GET /printing/v1/drivers/?vendor=)',
      );
    }
    return driver;
  }

  /** The driver for printer fields about to be stored (manual driver: SKIPPED). */
  assign(fields: PrinterFields, connectorOs: string): DriverAssignment {
    const identity = { pnpId: fields.pnpId, vendorName: fields.vendorName, modelName: fields.modelName };
    return assignDriver(this.catalog.all(), identity, connectorOs, fields.manualDriverId);
  }

  /** Records the state of a printer's assignment. */
  record(printer: PrinterRecord, state: AutoDriverAssignmentState): void {
    this.repo.setState(printer.id, state, this.clock.now());
    this.logger.debug({ printer: printer.name, driver: printer.driverId, state }, 'driver assignment');
  }

  /** The printer's auto_driver_assignment_state. */
  state(printer: PrinterRecord): AutoDriverAssignmentState {
    const stored = this.repo.state(printer.id) as AutoDriverAssignmentState | undefined;
    if (stored) return stored;
    if (printer.manualDriverId !== null) return 'SKIPPED';
    return printer.driverId === null ? 'NOT_FOUND' : 'ASSIGNED';
  }

  /** The catalog's vendor names. */
  vendors(): string[] {
    return this.catalog.vendors();
  }

  /** The drivers of a vendor as Driver objects, counting the organization's printers per driver. */
  driversOf(organizationId: string, vendor: string): DriverWire[] {
    const usage = this.printers.driverUsage(organizationId);
    return this.catalog.byVendor(vendor).map((d) => ({
      id: d.id,
      name: d.name,
      readable_name: d.readable_name,
      vendor: d.vendor,
      os: d.os,
      arch: d.arch,
      printers_using_driver: usage.get(d.id) ?? 0,
      blob_capabilities: encodeBlobCapabilities(d.capabilities),
    }));
  }
}
