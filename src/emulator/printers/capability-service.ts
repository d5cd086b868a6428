/**
 * CapabilityService: a printer's blob capabilities (default and custom per capability), its
 * simplified capabilities (with the admin's tray names, enabled trays and color switch), the
 * connector's upload of defaults (whole, or merged with a PATCH of its properties and defaults:
 * properties-patch.ts), and the merged printer properties /sfapi/GetPrinterProperties shows.
 * Where defaults come from, first found wins: the connector's blob upload, the properties the
 * connector uploaded, the catalog driver of the printer, conservative defaults. The merge
 * rules are protocol/capability-merge.ts and capability-properties.ts, shared with the agent.
 * No resources to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { NotFoundError, ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  BLOB_CAPABILITY_NAMES,
  type BlobCapabilities,
  type BlobCapabilityName,
  type SimplifiedCapabilities,
  checkBlobCapabilities,
  checkBlobCapability,
  isBlobCapabilityName,
} from '../../protocol/blob-capabilities.js';
import {
  type EncodedBlobCapabilities,
  applySimplifiedCustom,
  applySimplifiedPatch,
  encodeBlobCapabilities,
  mergeCustomCapabilities,
  simplifiedFromBlob,
} from '../../protocol/capability-merge.js';
import {
  applySimplifiedToProperties,
  blobFromProperties,
  overlayBlobOnProperties,
} from '../../protocol/capability-properties.js';
import type { PrinterProperties } from '../../protocol/printer-properties.js';
import { CapabilityRepo } from './capability-repo.js';
import { driverAssignmentOver } from '../drivers/drivers-face.js';
import type { ConnectorPrinterRecords } from '../connectors/connectors-face.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { PrinterRecord } from './printer-repo.js';
import type { DriverAssignmentService } from '../drivers/drivers-face.js';
import { DEFAULT_DRIVER_DIR, DriverCatalog } from '../drivers/driver-catalog.js';
import { defaultCapabilityProperties } from './printer-wire.js';
import { type MergedUpload, mergePropertiesPatch } from './properties-patch.js';

/** Where a printer's default blob capabilities come from. */
export type CapabilitySource = 'connector' | 'properties' | 'driver' | 'none';

/** One capability as GET/PATCH blob_capabilities show it. */
export interface CapabilityPair<T = unknown> {
  default: T;
  custom: T | null;
}

/** GET .../blob_capabilities/: every capability with its default and custom. */
export type BlobCapabilitiesView = { [K in BlobCapabilityName]: CapabilityPair<BlobCapabilities[K]> };

/** Reads and changes printer capabilities. */
export class CapabilityService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly connectors: ConnectorPrinterRecords,
    private readonly repo: CapabilityRepo,
    private readonly catalog: DriverCatalog,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The printer's default blob capabilities and where they come from. */
  defaults(printer: PrinterRecord): { blob: BlobCapabilities; source: CapabilitySource } {
    const stored = this.repo.get(printer.id).defaults;
    if (stored) return { blob: stored, source: 'connector' };
    if (printer.properties) return { blob: blobFromProperties(printer.properties), source: 'properties' };
    const driver = printer.driverId === null ? undefined : this.catalog.findById(printer.driverId);
    if (driver) return { blob: driver.capabilities, source: 'driver' };
    return { blob: blobFromProperties(defaultCapabilityProperties()), source: 'none' };
  }

  /** GET blob_capabilities: default and custom of each capability. */
  blobView(printer: PrinterRecord): BlobCapabilitiesView {
    const { blob } = this.defaults(printer);
    const { custom } = this.repo.get(printer.id);
    const view: Record<string, CapabilityPair> = {};
    for (const name of BLOB_CAPABILITY_NAMES)
      view[name] = { default: blob[name], custom: custom[name] ?? null };
    return view as BlobCapabilitiesView;
  }

  /** PATCH blob_capabilities/<name>/ with {custom}: validates the shape; null resets to the default. */
  patchBlob(printer: PrinterRecord, name: string, body: unknown): CapabilityPair {
    if (!isBlobCapabilityName(name)) {
      throw new NotFoundError(`capability ${name} (one of ${BLOB_CAPABILITY_NAMES.join(', ')})`);
    }
    const value = (body as Record<string, unknown> | null)?.['custom'];
    if (typeof body !== 'object' || body === null || !('custom' in body)) {
      throw new ValidationError('custom', 'required: the custom value, or null to use the default');
    }
    const extra = Object.keys(body).filter((k) => k !== 'custom' && k !== 'default');
    const errors = extra.map((k) => new ValidationError(k, 'unknown field (send {"custom": ...})'));
    if (value !== null) errors.push(...checkBlobCapability(name, value, 'custom'));
    if (errors.length > 0) throw new ValidationErrors(errors);
    const custom = { ...this.repo.get(printer.id).custom, [name]: value };
    if (value === null) delete custom[name];
    this.repo.setCustom(printer.id, custom, this.clock.now());
    this.logger.info(
      { printer: printer.name, capability: name, reset: value === null },
      'custom capability set',
    );
    return { default: this.defaults(printer).blob[name], custom: value };
  }

  /** The connector's upload of the five defaults ({defaults: {...}} or the five at top level). */
  uploadDefaults(printer: PrinterRecord, body: unknown): void {
    const wrapped = (body as Record<string, unknown> | null)?.['defaults'];
    const value = wrapped === undefined ? body : wrapped;
    this.checkDefaults(value, wrapped === undefined ? 'body' : 'defaults');
    this.repo.setDefaults(printer.id, value as BlobCapabilities, this.clock.now());
    this.connectors.touchPrinters(printer.connectorId, this.clock.now());
  }

  /**
   * The connector's PATCH of what it uploaded (PrinterPropertiesPatch): every given property field
   * and blob capability default replaces the stored one, the rest stay. All is validated first
   * and stored in one transaction, so a refused PATCH changes nothing. Returns what was merged.
   */
  patchUpload(printer: PrinterRecord, body: unknown): MergedUpload {
    const merged = this.store.transaction(() => {
      const current = this.store.printers.findById(printer.id) ?? printer;
      const result = mergePropertiesPatch(body, {
        properties: current.properties,
        defaults: this.repo.get(printer.id).defaults,
      });
      const now = this.clock.now();
      if (result.properties) this.store.printers.setProperties(printer.id, result.properties, now);
      if (result.defaults) this.repo.setDefaults(printer.id, result.defaults, now);
      if (result.properties || result.defaults) this.connectors.touchPrinters(printer.connectorId, now);
      return result;
    });
    this.logger.info(
      { printer: printer.name, properties: merged.propertyNames, blob_capabilities: merged.capabilityNames },
      'printer properties patched',
    );
    return merged;
  }

  /** Throws ValidationErrors naming `path` when `value` is not a full set of blob capability defaults. */
  checkDefaults(value: unknown, path: string): void {
    const errors = checkBlobCapabilities(value, path);
    if (errors.length > 0) throw new ValidationErrors(errors);
  }

  /** Default blob capabilities with the custom values laid over them (rule 1). */
  mergedBlob(printer: PrinterRecord): BlobCapabilities {
    return mergeCustomCapabilities(this.defaults(printer).blob, this.repo.get(printer.id).custom);
  }

  /** GET default_capabilities: the simplified view of the defaults, nothing customized. */
  defaultSimplified(printer: PrinterRecord): SimplifiedCapabilities {
    return simplifiedFromBlob(this.defaults(printer).blob);
  }

  /** GET capabilities: the simplified view of the merged blob with the admin's customizations. */
  simplified(printer: PrinterRecord): SimplifiedCapabilities {
    return applySimplifiedCustom(
      simplifiedFromBlob(this.mergedBlob(printer)),
      this.repo.get(printer.id).simplified,
    );
  }

  /** PATCH capabilities: color_supported and trays (index, name, enabled); rule 2 enforced. */
  patchSimplified(printer: PrinterRecord, body: unknown): SimplifiedCapabilities {
    const base = simplifiedFromBlob(this.mergedBlob(printer));
    const next = applySimplifiedPatch(base, this.repo.get(printer.id).simplified, body);
    this.repo.setSimplified(printer.id, next, this.clock.now());
    return applySimplifiedCustom(base, next);
  }

  /** The GetPrinterProperties element with every customization applied. */
  properties(printer: PrinterRecord): PrinterProperties {
    const { blob, source } = this.defaults(printer);
    const record = this.repo.get(printer.id);
    let props = printer.properties ?? defaultCapabilityProperties();
    if (!printer.properties && (source === 'connector' || source === 'driver')) {
      props = overlayBlobOnProperties(props, blob, BLOB_CAPABILITY_NAMES);
    }
    const customized = BLOB_CAPABILITY_NAMES.filter((n) => record.custom[n] != null);
    const merged = mergeCustomCapabilities(blob, record.custom);
    props = overlayBlobOnProperties(props, merged, customized);
    props = applySimplifiedToProperties(
      props,
      applySimplifiedCustom(simplifiedFromBlob(merged), record.simplified),
    );
    return { ...props, Id: printer.id, Name: printer.name, Location: printer.location, TPUID: printer.tpId };
  }

  /** The Printer object's blob_capabilities: the merged five, encoded; null when nothing is known. */
  encoded(printer: PrinterRecord): EncodedBlobCapabilities | null {
    return this.defaults(printer).source === 'none' ? null : encodeBlobCapabilities(this.mergedBlob(printer));
  }
}

/** The capability and driver services of an emulator, built over its store. */
export interface PrinterParts {
  capabilities: CapabilityService;
  drivers: DriverAssignmentService;
}

/** Loads the driver catalog from `driverDir` and builds both services; nothing to close. */
export async function startPrinterParts(
  store: EmulatorStore,
  connectors: ConnectorPrinterRecords,
  clock: Clock,
  logger: Logger,
  driverDir: string = DEFAULT_DRIVER_DIR,
): Promise<PrinterParts> {
  const catalog = new DriverCatalog(driverDir, logger);
  await catalog.start();
  return {
    capabilities: new CapabilityService(
      store,
      connectors,
      new CapabilityRepo(store.db),
      catalog,
      clock,
      logger,
    ),
    drivers: driverAssignmentOver(catalog, store.db, store.printers, clock, logger),
  };
}
