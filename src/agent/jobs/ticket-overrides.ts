/**
 * Admin overrides applied to print tickets: before a job goes to the printer, the printer's
 * capabilities as the cloud holds them (blob capability defaults with the admin's custom values
 * merged over them, and the simplified capabilities with custom tray names and disabled trays)
 * adjust the ticket (applyCapabilityOverrides). The capabilities are cached per printer for
 * `ttlMs`, dropped by invalidate() when the sync uploads new defaults; two jobs of one printer
 * share one fetch. When the cloud cannot answer, the ticket goes unchanged with a warning (a job
 * is never refused for that). Holds no resources; clear() empties the cache.
 */
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type {
  BlobCapabilities,
  BlobCapabilityName,
} from '../../printing/translate/capabilities/blob-capabilities.js';
import {
  type AdjustedTicket,
  applyCapabilityOverrides,
  type EffectiveCapabilities,
  mergeCustomCapabilities,
} from '../../printing/translate/capabilities/capability-overrides.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import { type PrinterSyncClient, splitBlobCapabilities } from '../printer-sync/printer-sync-client.js';

/** Adjusts a job's ticket to the printer's admin overrides (the job runner calls it before submit). */
export type ApplyTicketOverrides = (printerId: string, ticket: PrintTicket) => Promise<AdjustedTicket>;

/** What TicketOverrides needs; owned by the caller. */
export interface TicketOverridesDeps {
  client: Pick<PrinterSyncClient, 'blobCapabilities' | 'capabilities'>;
  clock: Clock;
  logger: Logger;
  /** How long fetched capabilities are used (default 60 s; admin edits show up within it). */
  ttlMs?: number;
}

type Fetched = { caps: EffectiveCapabilities } | { missing: string };

interface CacheEntry {
  at: number;
  value: Promise<Fetched>;
}

const NAMES: BlobCapabilityName[] = ['colors', 'trays', 'options', 'papers', 'resolutions'];

/** Fetches, caches and applies a printer's effective capabilities. */
export class TicketOverrides {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly deps: TicketOverridesDeps) {}

  /** The ApplyTicketOverrides function bound to this cache. */
  readonly apply: ApplyTicketOverrides = async (printerId, ticket) => {
    let fetched: Fetched;
    try {
      fetched = await this.effective(printerId);
    } catch (error) {
      this.cache.delete(printerId);
      const reason = errorMessage(error);
      this.deps.logger.warn({ printer: printerId, error: reason }, 'printer capabilities unavailable');
      return {
        ticket,
        warnings: [`capabilities: not available from the cloud (${reason}); ticket sent unchanged`],
      };
    }
    if ('missing' in fetched)
      return { ticket, warnings: [`capabilities: ${fetched.missing}; ticket sent unchanged`] };
    return applyCapabilityOverrides(ticket, fetched.caps);
  };

  /** Drops the cached capabilities of the given printers (all when none given). */
  invalidate(printerIds?: string[]): void {
    if (!printerIds) this.cache.clear();
    else for (const id of printerIds) this.cache.delete(id);
  }

  /** Empties the cache. */
  clear(): void {
    this.cache.clear();
  }

  private effective(printerId: string): Promise<Fetched> {
    const now = this.deps.clock.now();
    const hit = this.cache.get(printerId);
    if (hit && now - hit.at < (this.deps.ttlMs ?? 60_000)) return hit.value;
    const value = this.fetch(printerId);
    this.cache.set(printerId, { at: now, value });
    return value;
  }

  private async fetch(printerId: string): Promise<Fetched> {
    const [blob, simplified] = await Promise.all([
      this.deps.client.blobCapabilities(printerId),
      this.deps.client.capabilities(printerId),
    ]);
    if (!blob || !simplified) return { missing: 'the cloud holds none for this printer' };
    const { defaults, custom } = splitBlobCapabilities(blob);
    const lacking = NAMES.filter((n) => defaults[n] === undefined && (custom[n] ?? null) === null);
    if (lacking.length > 0) return { missing: `no value for ${lacking.join(', ')}` };
    const base = { ...defaults } as BlobCapabilities;
    for (const name of NAMES) {
      if (base[name] === undefined) Object.assign(base, { [name]: custom[name] });
    }
    return { caps: { blob: mergeCustomCapabilities(base, custom), simplified } };
  }
}
