/**
 * Automatic driver assignment, pure: which catalog driver serves a printer, by its IEEE 1284
 * device id (MFG/MDL) first, then by vendor_name and model_name (a make-and-model string in
 * model_name also works), for the operating system of the printer's connector. The state shown
 * as auto_driver_assignment_state:
 *   ASSIGNED  - a catalog driver matched and is the printer's driver_id;
 *   NOT_FOUND - no catalog driver for this make and model on the connector's OS (driver_id null);
 *   SKIPPED   - an admin set driver_id by hand (manual_driver_id); no automatic assignment runs.
 * No I/O; nothing to clean up.
 */
import type { CatalogDriver } from './driver-catalog.js';

/** The values of auto_driver_assignment_state. */
export type AutoDriverAssignmentState = 'ASSIGNED' | 'NOT_FOUND' | 'SKIPPED';

/** What a printer tells about its make and model. */
export interface PrinterIdentity {
  /** IEEE 1284 device id, e.g. `MFG:HP;MDL:LaserJet Pro M404dn;CMD:PCL,PDF;`. */
  pnpId: string;
  vendorName: string;
  modelName: string;
}

/** The outcome of an assignment. */
export interface DriverAssignment {
  driverId: string | null;
  state: AutoDriverAssignmentState;
}

/** Manufacturer and model of an IEEE 1284 device id (keys MFG/MANUFACTURER, MDL/MODEL, any case). */
export function parseDeviceId(pnpId: string): { manufacturer: string; model: string } {
  const fields = new Map<string, string>();
  for (const part of pnpId.split(';')) {
    const colon = part.indexOf(':');
    if (colon > 0) fields.set(part.slice(0, colon).trim().toUpperCase(), part.slice(colon + 1).trim());
  }
  return {
    manufacturer: fields.get('MFG') ?? fields.get('MANUFACTURER') ?? '',
    model: fields.get('MDL') ?? fields.get('MODEL') ?? '',
  };
}

/** Lower case, letters and digits only: "HL-L2350DW series" -> "hll2350dwseries". */
function norm(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** True when the driver serves this make and model (the make may also prefix the model). */
export function driverMatches(driver: CatalogDriver, make: string, model: string): boolean {
  const makes = driver.match.manufacturers.map(norm);
  const models = driver.match.models.map(norm);
  const m = norm(model);
  if (m === '') return false;
  const makeOk = make === '' || makes.includes(norm(make));
  if (makeOk && models.includes(m)) return true;
  return makes.some((prefix) => m.startsWith(prefix) && models.includes(m.slice(prefix.length)));
}

/** The first driver (catalog order) for the OS that matches the device id, else vendor and model. */
export function findDriver(
  drivers: readonly CatalogDriver[],
  identity: PrinterIdentity,
  os: string,
): CatalogDriver | undefined {
  const forOs = drivers.filter((d) => d.os === os);
  const device = parseDeviceId(identity.pnpId);
  return (
    forOs.find((d) => driverMatches(d, device.manufacturer, device.model)) ??
    forOs.find((d) => driverMatches(d, identity.vendorName, identity.modelName))
  );
}

/** The driver and state of a printer: SKIPPED with the manual driver, else ASSIGNED or NOT_FOUND. */
export function assignDriver(
  drivers: readonly CatalogDriver[],
  identity: PrinterIdentity,
  os: string,
  manualDriverId: string | null,
): DriverAssignment {
  if (manualDriverId !== null) return { driverId: manualDriverId, state: 'SKIPPED' };
  const driver = findDriver(drivers, identity, os);
  return driver ? { driverId: driver.id, state: 'ASSIGNED' } : { driverId: null, state: 'NOT_FOUND' };
}
