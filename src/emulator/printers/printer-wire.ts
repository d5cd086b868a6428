/**
 * Pure conversions of printers to their wire shapes: the admin API's Printer object, and the
 * /sfapi/ GetPrinterProperties element (uploaded properties merged with Id, Name, Location,
 * TPUID, or conservative defaults with `Trays: [null]` before the connector uploaded any).
 * Also validates an uploaded properties object and its single fields. No I/O.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { PrinterCapabilityProperties, PrinterProperties } from '../../protocol/printer-properties.js';
import type { PrinterRecord } from './printer-repo.js';

/** The Printer resource of the admin API. */
export interface PrinterWire {
  id: string;
  name: string;
  status: PrinterRecord['status'];
  tp_id: number;
  supported_formats: string[];
  vendor_name: string;
  model_name: string;
  location: string;
  pnp_id: string;
  connector_id: string;
  driver_id: string | null;
  manual_driver_id: string | null;
  /** The merged capabilities, encoded; null while nothing is known about them. */
  blob_capabilities: PrinterBlobCapabilities | null;
  /** ASSIGNED, NOT_FOUND or SKIPPED (see services/driver-assignment.ts). */
  auto_driver_assignment_state: 'ASSIGNED' | 'NOT_FOUND' | 'SKIPPED';
  can_modify_favorite: boolean;
  is_favorite: boolean;
}

/** A Printer object's blob_capabilities (spec: Options, Count, Capabilities). */
export interface PrinterBlobCapabilities {
  Options: number;
  Count: number;
  /** Base64 of the JSON of the five merged capabilities. */
  Capabilities: string;
}

/** What the services know beyond the printers table (driver state, capabilities). */
export interface PrinterWireExtras {
  autoDriverAssignmentState: PrinterWire['auto_driver_assignment_state'];
  blobCapabilities: { options: number; count: number; capabilities: string } | null;
}

/** The admin API's Printer object of a stored printer. */
export function printerToWire(p: PrinterRecord, extras?: PrinterWireExtras): PrinterWire {
  const blob = extras?.blobCapabilities ?? null;
  return {
    id: p.id,
    name: p.name,
    status: p.status,
    tp_id: p.tpId,
    supported_formats: p.supportedFormats,
    vendor_name: p.vendorName,
    model_name: p.modelName,
    location: p.location,
    pnp_id: p.pnpId,
    connector_id: p.connectorId,
    driver_id: p.driverId,
    manual_driver_id: p.manualDriverId,
    blob_capabilities:
      blob === null ? null : { Options: blob.options, Count: blob.count, Capabilities: blob.capabilities },
    auto_driver_assignment_state:
      extras?.autoDriverAssignmentState ?? (p.manualDriverId ? 'SKIPPED' : 'NOT_FOUND'),
    can_modify_favorite: false,
    is_favorite: false,
  };
}

/**
 * What a printer offers before its connector uploads properties: plain A4/Letter, one side, mono.
 * Values are spelled as the connector's upload spells them (orientations `portrait`/`landscape` as
 * the spec writes them, duplex `Simplex`), so GetPrinterProperties reads the same for every printer.
 */
export function defaultCapabilityProperties(): PrinterCapabilityProperties {
  return {
    Driver: '',
    Collate: false,
    Color: false,
    ColorSupported: false,
    DuplexSupported: false,
    DuplexMode: 1,
    MediaSupported: ['A4', 'Letter'],
    MediaSupportedId: [9, 1],
    OrientationsSupported: ['portrait', 'landscape'],
    OrientationsSupportedId: [1, 2],
    PaperFormats: [
      { Id: 9, Name: 'A4', XRes: 2100, YRes: 2970, Default: true },
      { Id: 1, Name: 'Letter', XRes: 2159, YRes: 2794, Default: false },
    ],
    Resolutions: ['Auto'],
    Trays: [null],
    Default: {
      Duplex: 'Simplex',
      DuplexIndex: 1,
      Color: 'Monochrome',
      Orientation: 'portrait',
      OrientationIndex: 1,
      Resolution: 'Auto',
      Paper: 'A4',
      PaperId: 9,
      Tray: '',
      TrayIndex: 0,
    },
  };
}

/** The GetPrinterProperties element of a printer. */
export function printerProperties(p: PrinterRecord): PrinterProperties {
  const base = p.properties ?? defaultCapabilityProperties();
  return { ...base, Id: p.id, Name: p.name, Location: p.location, TPUID: p.tpId };
}

const EXPECTED: Record<
  keyof PrinterCapabilityProperties,
  'string' | 'boolean' | 'number' | 'array' | 'object'
> = {
  Driver: 'string',
  Collate: 'boolean',
  Color: 'boolean',
  ColorSupported: 'boolean',
  DuplexSupported: 'boolean',
  DuplexMode: 'number',
  MediaSupported: 'array',
  MediaSupportedId: 'array',
  OrientationsSupported: 'array',
  OrientationsSupportedId: 'array',
  PaperFormats: 'array',
  Resolutions: 'array',
  Trays: 'array',
  Default: 'object',
};

/** The names of the printer-properties fields a connector uploads, in the order of the type. */
export const PROPERTY_NAMES = Object.keys(EXPECTED) as (keyof PrinterCapabilityProperties)[];

/** True when `name` is one of PROPERTY_NAMES. */
export function isPropertyName(name: string): name is keyof PrinterCapabilityProperties {
  return Object.hasOwn(EXPECTED, name);
}

/** The problem with one uploaded property field (reported at `path`), or undefined when it is fine. */
export function checkPropertyField(
  name: keyof PrinterCapabilityProperties,
  value: unknown,
  path: string,
): ValidationError | undefined {
  const type = EXPECTED[name];
  const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (actual === type) return undefined;
  return new ValidationError(path, `must be ${type === 'array' ? 'an' : 'a'} ${type}`);
}

/** Checks the body of PUT /connector/v1/printers/<id>/properties; throws naming every bad field. */
export function parsePropertiesUpload(body: unknown): PrinterCapabilityProperties {
  const properties = (body as { properties?: unknown } | null)?.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    throw new ValidationErrors([new ValidationError('properties', 'must be an object')]);
  }
  const errors: ValidationError[] = [];
  for (const name of PROPERTY_NAMES) {
    const value = (properties as Record<string, unknown>)[name];
    const error = checkPropertyField(name, value, `properties.${name}`);
    if (error) errors.push(error);
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return properties as PrinterCapabilityProperties;
}
