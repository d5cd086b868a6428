/**
 * The local side of a printer sync run: the configured printers plus the discovered ones (the
 * allow/deny lists already applied by discoverAll), each described by its backend and translated
 * into printer properties and blob capability defaults. A printer that does not answer stays in
 * the inventory as unreachable (it goes Offline, never away); a discovery source that failed
 * marks the inventory `discoveryOk: false` so nothing is treated as missing. Backends are kept
 * per URI between runs in a BackendPool; its owner calls closeAll().
 */
import type { AgentPrinterConfig } from '../../config/agent-schema.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { BackendRegistry } from '../../printing/backend-registry.js';
import type { DiscoveryResult } from '../../printing/discovery/discovery.js';
import type { PrinterBackend, PrinterDescription } from '../../printing/printer-backend.js';
import { ippToBlobCapabilities } from '../../printing/translate/capabilities/blob-capabilities.js';
import { ippToPrinterProperties } from '../../printing/translate/capabilities/ipp-to-properties.js';
import type { LocalInventory, LocalPrinter } from './sync-types.js';

/** A printer the agent wants in the cloud: its config entry and where it came from. */
export interface WantedPrinter {
  entry: AgentPrinterConfig;
  /** config, cups, winspool or dnssd. */
  source: string;
}

/** The backends of the printers, one per URI, reused across runs. */
export class BackendPool {
  private readonly backends = new Map<string, PrinterBackend>();

  constructor(
    private readonly registry: BackendRegistry,
    private readonly context: { dataDir: string; logger: Logger },
  ) {}

  /** The backend for a URI, made on first use. */
  get(uri: string, name: string): PrinterBackend {
    let backend = this.backends.get(uri);
    if (!backend) {
      backend = this.registry.create(uri, {
        dataDir: this.context.dataDir,
        logger: this.context.logger.child({ printer: name }),
      });
      this.backends.set(uri, backend);
    }
    return backend;
  }

  /** Closes the backends whose URI is not in `keep`. */
  async closeExcept(keep: Set<string>): Promise<void> {
    for (const [uri, backend] of this.backends) {
      if (keep.has(uri)) continue;
      this.backends.delete(uri);
      await backend.close().catch(() => undefined);
    }
  }

  /** Closes every backend. */
  async closeAll(): Promise<void> {
    await this.closeExcept(new Set());
  }
}

/**
 * The stable local identity of a printer, strongest first: a configured printer is its
 * configured name, a CUPS (or Windows) queue its queue name, a DNS-SD printer its IPP
 * printer-uuid when it answered, else its DNS-SD instance name. The address is never part of
 * it, so a printer whose URI or port changes keeps its cloud printer. Pure.
 */
export function printerIdentity(source: string, name: string, uuid?: string): string {
  if (source === 'config') return `config:${name.toLowerCase()}`;
  if (source === 'cups' || source === 'winspool') return `${source}:${name}`;
  if (uuid) return `uuid:${uuid.toLowerCase()}`;
  return `${source}:${name}`;
}

/** Configured (enabled) printers first, then discovered ones; one per URI and one per name. */
export function wantedPrinters(
  configured: AgentPrinterConfig[],
  discovered: DiscoveryResult[],
  logger: Logger,
): WantedPrinter[] {
  const wanted: WantedPrinter[] = [];
  const uris = new Set<string>();
  const names = new Set<string>();
  const add = (entry: AgentPrinterConfig, source: string) => {
    if (uris.has(entry.uri)) return;
    if (names.has(entry.name.toLowerCase())) {
      logger.warn({ printer: entry.name, uri: entry.uri, source }, 'a printer of that name exists; skipped');
      return;
    }
    uris.add(entry.uri);
    names.add(entry.name.toLowerCase());
    wanted.push({ entry, source });
  };
  for (const entry of configured.filter((p) => p.enabled)) add(entry, 'config');
  for (const result of discovered) {
    if (!result.ok) continue;
    for (const p of result.printers) {
      const entry = { name: p.name.slice(0, 255), uri: p.uri, enabled: true };
      add(p.location ? { ...entry, location: p.location.slice(0, 255) } : entry, p.source);
    }
  }
  return wanted;
}

/** The LocalPrinter of a described (or unreachable) printer. Pure. */
export function localPrinterOf(
  entry: AgentPrinterConfig,
  description: PrinterDescription | undefined,
  source?: string,
): LocalPrinter {
  const identity = source ? { identity: printerIdentity(source, entry.name, description?.uuid) } : {};
  if (!description)
    return {
      name: entry.name,
      uri: entry.uri,
      ...identity,
      state: 'stopped',
      reachable: false,
      location: entry.location,
    };
  const [vendor, ...model] = description.makeAndModel.trim().split(/\s+/);
  return {
    name: entry.name,
    uri: entry.uri,
    ...identity,
    uuid: description.uuid,
    deviceId: description.deviceId,
    state: description.state,
    reachable: true,
    location: (entry.location ?? description.location)?.slice(0, 255),
    vendorName: vendor?.slice(0, 255),
    modelName: model.join(' ').slice(0, 255),
    supportedFormats: ['PDF', 'RAW'],
    properties: ippToPrinterProperties(description.attributes),
    capabilities: ippToBlobCapabilities(description.attributes),
  };
}

/** Describes every wanted printer, at most `concurrency` at once; never throws for one printer. */
export async function describeAll(
  wanted: WantedPrinter[],
  pool: BackendPool,
  logger: Logger,
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<LocalPrinter[]> {
  const out: LocalPrinter[] = new Array(wanted.length);
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const index = next++;
      const { entry, source } = wanted[index] as WantedPrinter;
      let description: PrinterDescription | undefined;
      try {
        description = await pool.get(entry.uri, entry.name).describe(options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        logger.warn(
          { printer: entry.name, error: errorMessage(error) },
          'printer did not answer; kept Offline',
        );
      }
      out[index] = translated(entry, description, source, logger);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 16, wanted.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return out;
}

/**
 * The LocalPrinter of a printer that answered; one whose attributes cannot be translated (a
 * CUPS raw queue lists no paper size) is kept Offline with a warning naming the printer and the
 * attribute, so one such printer never stops the sync of the others or the agent's start.
 */
function translated(
  entry: AgentPrinterConfig,
  description: PrinterDescription | undefined,
  source: string | undefined,
  logger: Logger,
): LocalPrinter {
  try {
    return localPrinterOf(entry, description, source);
  } catch (error) {
    logger.warn(
      { printer: entry.name, uri: entry.uri, error: errorMessage(error) },
      'printer answered but its attributes cannot be used; kept Offline until they can',
    );
    const offline = localPrinterOf(entry, undefined, source);
    // The same identity as once its attributes can be used: one cloud printer, not two.
    if (!source || !description?.uuid) return offline;
    return {
      ...offline,
      uuid: description.uuid,
      identity: printerIdentity(source, entry.name, description.uuid),
    };
  }
}

/** The inventory of a run: discovery is ok only when every source answered. */
export function inventoryOf(printers: LocalPrinter[], discovered: DiscoveryResult[]): LocalInventory {
  return { printers, discoveryOk: discovered.every((r) => r.ok) };
}
