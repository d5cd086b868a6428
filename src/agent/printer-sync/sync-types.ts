/**
 * The shapes of the printer sync: the local and cloud views of a printer, the persisted sync
 * state, and the calls a plan (sync-plan.ts) asks the executor (sync-executor.ts) to make.
 */
import type {
  BlobCapabilities,
  BlobCapabilityName,
} from '../../printing/translate/capabilities/blob-capabilities.js';
import type { PrinterState } from '../../printing/printer-backend.js';
import type { PrinterCapabilityProperties } from '../../protocol/printer-properties.js';
import type { PropertyName } from './upload-diff.js';

export type CloudStatus = 'Online' | 'Offline';

/** A printer as discovered locally this run. */
export interface LocalPrinter {
  name: string;
  uri: string;
  /**
   * The stable local identity (printerIdentity in printer-sync-inventory.ts): the configured
   * name, the CUPS queue, the IPP printer-uuid or the DNS-SD instance name; never the address.
   */
  identity?: string;
  uuid?: string;
  deviceId?: string;
  state: PrinterState;
  /** False when the printer could not be asked this run (it stays registered, Offline). */
  reachable: boolean;
  location?: string;
  vendorName?: string;
  modelName?: string;
  supportedFormats?: string[];
  properties?: PrinterCapabilityProperties;
  capabilities?: BlobCapabilities;
}

export interface LocalInventory {
  printers: LocalPrinter[];
  /** False when discovery itself failed: nothing is treated as missing then. */
  discoveryOk: boolean;
}

/** A cloud printer as GET /printing/v1/printers/ lists it (fields the plan reads). */
export interface CloudPrinter {
  id: string;
  name: string;
  status: string;
  tp_id: number;
  connector_id: string;
  location?: string;
  vendor_name?: string;
  model_name?: string;
  pnp_id?: string;
  supported_formats?: string[];
}

/** What the agent remembers per printer between runs. */
export interface PrinterSyncRecord {
  cloudId?: string;
  tpId: number;
  name: string;
  uri: string;
  /** LocalPrinter.identity when it was last seen (absent in states written before it existed). */
  identity?: string;
  uuid?: string;
  deviceId?: string;
  /** One hash per top-level properties field the cloud holds (upload-diff.ts); absent: none known. */
  propertyHashes?: Partial<Record<PropertyName, string>>;
  /** One hash per blob capability default the cloud holds; empty: none known. */
  capabilityHashes: Partial<Record<BlobCapabilityName, string>>;
  /** ms since epoch when the printer was first found missing locally; absent while present. */
  firstMissingAt?: number;
}

export interface SyncState {
  printers: PrinterSyncRecord[];
}

export interface SyncOptions {
  connectorId: string;
  /** Default 24 h. */
  gracePeriodMs?: number;
  /** Largest share of all known printers deleted in one run (0..1, default 0.25; at least one). */
  maxDeleteShare?: number;
}

/** Fields of the cloud printer object the connector owns. */
export interface PrinterFields {
  name: string;
  status: CloudStatus;
  tp_id: number;
  location: string;
  vendor_name: string;
  model_name: string;
  pnp_id: string;
  supported_formats: string[];
}

/** A reference to the printer a call is about: cloudId is absent until its create ran. */
export interface SyncTarget {
  tpId: number;
  cloudId?: string;
}

export type SyncCall =
  | { kind: 'create'; target: SyncTarget; body: PrinterFields }
  | { kind: 'put'; target: SyncTarget; body: PrinterFields & { connector_id: string } }
  | { kind: 'patch'; target: SyncTarget; body: Partial<PrinterFields> }
  /** The whole upload: PUT properties (with all five defaults); PUT blob_capabilities without properties. */
  | {
      kind: 'upload';
      target: SyncTarget;
      properties?: PrinterCapabilityProperties;
      capabilities?: BlobCapabilities;
    }
  /** Only what changed: PATCH properties with the changed fields and blob capabilities (never both empty). */
  | {
      kind: 'upload-patch';
      target: SyncTarget;
      properties?: Partial<PrinterCapabilityProperties>;
      capabilities?: Partial<BlobCapabilities>;
    }
  | { kind: 'delete'; target: SyncTarget; reason: string };

export interface SyncPlan {
  calls: SyncCall[];
  /** The state once every call succeeded (persist it only then). */
  state: SyncState;
  /** Why something expected did not happen (deletes held back, discovery failed). */
  notes: string[];
}
