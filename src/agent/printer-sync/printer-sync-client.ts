/**
 * The cloud calls the printer sync and the ticket overrides need beyond ChannelClient: the
 * connector's printers (paginated GET /printing/v1/printers/?connector_id=), the upload of
 * default blob capabilities, and reading a printer's blob capabilities (default and custom) and
 * simplified capabilities merged with the admin's customizations. The HttpClient is owned by the
 * caller (who closes it); this class holds nothing.
 */
import { type HttpClient, HttpError } from '../../client/http-base.js';
import { type BlobCapabilitiesUpload, CHANNEL_PATHS } from '../../protocol/connector-channel.js';
import type {
  BlobCapabilities,
  BlobCapabilityName,
  SimplifiedCapabilities,
} from '../../printing/translate/capabilities/blob-capabilities.js';
import type { CustomCapabilities } from '../../printing/translate/capabilities/capability-overrides.js';
import type { CloudPrinter } from './sync-types.js';

function adminPrinterPath(printerId: string, tail: string): string {
  return `/printing/v1/printers/${encodeURIComponent(printerId)}/${tail}`;
}

interface Page<T> {
  count?: number;
  next?: string | null;
  results?: T[];
}

/** One capability as GET blob_capabilities returns it. */
export interface BlobCapabilityPair<T = unknown> {
  default: T | null;
  custom: T | null;
}

/** GET blob_capabilities: each capability's default and custom value. */
export type CloudBlobCapabilities = { [K in BlobCapabilityName]?: BlobCapabilityPair<BlobCapabilities[K]> };

const PAGE_SIZE = 1000;
const MAX_PAGES = 1000;

/** Cloud calls of the printer sync; construct with the agent's HttpClient. */
export class PrinterSyncClient {
  constructor(
    private readonly http: HttpClient,
    /** Printers asked per list page (the cloud allows up to 1000). */
    private readonly pageSize = PAGE_SIZE,
  ) {}

  /** Every printer of the connector, following the limit/offset pagination to its end. */
  async listPrinters(connectorId: string, signal?: AbortSignal): Promise<CloudPrinter[]> {
    const printers: CloudPrinter[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.http.json<Page<CloudPrinter>>({
        method: 'GET',
        path: '/printing/v1/printers/',
        query: { connector_id: connectorId, limit: this.pageSize, offset: page * this.pageSize },
        headers: { 'x-host-id': connectorId },
        signal,
      });
      const rows = res?.results ?? [];
      printers.push(...rows.filter((p) => p.connector_id === connectorId));
      if (!res?.next || rows.length === 0) return printers;
    }
    throw new Error(`printer list of connector ${connectorId} has more than ${MAX_PAGES} pages`);
  }

  /** Uploads the five default blob capabilities of a printer (customs set by admins stay). */
  async uploadBlobDefaults(
    printerId: string,
    defaults: BlobCapabilities,
    signal?: AbortSignal,
  ): Promise<void> {
    const body: BlobCapabilitiesUpload = { defaults };
    await this.http.json<unknown>({
      method: 'PUT',
      path: CHANNEL_PATHS.printerBlobCapabilities(printerId),
      json: body,
      signal,
    });
  }

  /** Default and custom of every blob capability; undefined when the cloud has none for the printer. */
  async blobCapabilities(
    printerId: string,
    signal?: AbortSignal,
  ): Promise<CloudBlobCapabilities | undefined> {
    return this.optional(adminPrinterPath(printerId, 'blob_capabilities/'), signal);
  }

  /** Simplified capabilities merged with customizations; undefined when the cloud has none. */
  async capabilities(printerId: string, signal?: AbortSignal): Promise<SimplifiedCapabilities | undefined> {
    return this.optional(adminPrinterPath(printerId, 'capabilities/'), signal);
  }

  private async optional<T>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return await this.http.json<T>({ method: 'GET', path, signal });
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return undefined;
      throw error;
    }
  }
}

/** Splits GET blob_capabilities into the defaults and the custom values (null when unset). */
export function splitBlobCapabilities(cloud: CloudBlobCapabilities): {
  defaults: Partial<BlobCapabilities>;
  custom: CustomCapabilities;
} {
  const defaults: Partial<BlobCapabilities> = {};
  const custom: CustomCapabilities = {};
  for (const [name, pair] of Object.entries(cloud) as [
    BlobCapabilityName,
    BlobCapabilityPair | undefined,
  ][]) {
    if (!pair || typeof pair !== 'object') continue;
    if (pair.default !== null && pair.default !== undefined)
      Object.assign(defaults, { [name]: pair.default });
    Object.assign(custom, { [name]: pair.custom ?? null });
  }
  return { defaults, custom };
}
