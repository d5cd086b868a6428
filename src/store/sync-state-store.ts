/**
 * The printer sync state in the agent's store (table printer_sync): per printer its stable
 * tp_id, cloud id, printer uuid, identity facts (name, URI, device id), one hash per uploaded
 * properties field and one per blob capability, and when it was first found missing. The printer
 * sync reads it before a run and replaces it after one, so restarts, renames and new addresses
 * keep the cloud id and tp_id. The database is owned (and closed) by the caller.
 */
import type { Clock } from '../lib/clock.js';
import type { AgentDatabase } from './agent-db.js';

/**
 * What this store needs of a printer's sync record; the printer sync (agent/printer-sync/sync-types.ts)
 * defines the whole record, which the store keeps as JSON and hands back unchanged.
 */
export interface StoredSyncRecord {
  tpId: number;
  cloudId?: string;
  name: string;
  uri: string;
  uuid?: string;
  /** Hashes of the uploaded properties fields, by field name. */
  propertyHashes?: Partial<Record<string, string>>;
  /** Hashes of the uploaded blob capabilities, by capability name. */
  capabilityHashes: Partial<Record<string, string>>;
}

/** The remembered printers of one agent. */
export interface StoredSyncState<R extends StoredSyncRecord> {
  printers: R[];
}

interface SyncRow {
  tp_id: number;
  record_json: string;
}

interface IdentityRow {
  name: string;
  cloud_id: string | null;
  tp_id: number;
  uuid: string | null;
  uri: string;
}

/** Reads and replaces the sync state of records shaped `R`; nothing to clean up. */
export class SyncStateStore<R extends StoredSyncRecord = StoredSyncRecord> {
  constructor(
    private readonly db: AgentDatabase,
    private readonly clock: Clock,
  ) {}

  /**
   * The remembered state. On first use after an upgrade it starts from the printers the
   * start-time registration stored (identity table), so their tp_id and cloud id are kept.
   */
  load(): StoredSyncState<R> {
    const rows = this.db
      .prepare('SELECT tp_id, record_json FROM printer_sync ORDER BY tp_id')
      .all() as SyncRow[];
    if (rows.length > 0) return { printers: rows.map((row) => parseRecord<R>(row)) };
    const legacy = this.db.prepare('SELECT * FROM printers ORDER BY tp_id').all() as IdentityRow[];
    return {
      printers: legacy.map((row) => ({
        cloudId: row.cloud_id ?? undefined,
        tpId: row.tp_id,
        name: row.name,
        uri: row.uri,
        uuid: row.uuid ?? undefined,
        capabilityHashes: {},
      })) as R[],
    };
  }

  /** Replaces the whole state in one transaction. */
  save(state: StoredSyncState<R>): void {
    const now = this.clock.now();
    const insert = this.db.prepare(
      'INSERT INTO printer_sync (tp_id, cloud_id, uuid, record_json, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM printer_sync').run();
      for (const record of state.printers) {
        insert.run(record.tpId, record.cloudId ?? null, record.uuid ?? null, JSON.stringify(record), now);
      }
    })();
  }

  /** Forgets every cloud id and upload hash (the cloud deleted the connector); tp_ids stay. */
  forgetCloudIds(): void {
    const state = this.load();
    this.save({
      printers: state.printers.map((r) => ({
        ...r,
        cloudId: undefined,
        propertyHashes: undefined,
        capabilityHashes: {},
      })) as R[],
    });
  }
}

function parseRecord<R extends StoredSyncRecord>(row: SyncRow): R {
  // `propertiesHash` (one hash of all properties) came before propertyHashes: dropped, so the
  // next sync uploads such a printer whole once and remembers a hash per field from then on.
  const { propertiesHash: _old, ...parsed } = JSON.parse(row.record_json) as R & { propertiesHash?: string };
  return { ...parsed, tpId: row.tp_id, capabilityHashes: parsed.capabilityHashes ?? {} } as R;
}
