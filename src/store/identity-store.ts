/**
 * The agent's identity in its store: the stable serial (generated once), the connector id the
 * cloud gave it, and per configured printer its cloud printer id, its stable tp_id and the
 * printer's uuid. Re-registration reads these, so restarts never duplicate anything in the cloud.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { AgentDatabase } from './agent-db.js';

/** What the store knows about one configured printer. */
export interface PrinterIdentity {
  name: string;
  /** Cloud printer id; undefined until the first successful create. */
  cloudId: string | undefined;
  tpId: number;
  uuid: string | undefined;
  uri: string;
}

interface PrinterRow {
  name: string;
  cloud_id: string | null;
  tp_id: number;
  uuid: string | null;
  uri: string;
}

const MAX_TP_ID = 2_147_483_646;

/** Reads and writes identity facts; the database is owned (and closed) by the caller. */
export class IdentityStore {
  constructor(
    private readonly db: AgentDatabase,
    private readonly clock: Clock,
  ) {}

  /** The stable serial: the override when given (and then remembered), else generated once. */
  serial(override?: string): string {
    if (override) {
      this.setMeta('serial', override);
      return override;
    }
    const existing = this.meta('serial');
    if (existing) return existing;
    const generated = `PrintRelay-${randomUUID()}`;
    this.setMeta('serial', generated);
    return generated;
  }

  /** The connector id from the last registration, if any. */
  connectorId(): string | undefined {
    return this.meta('connector_id');
  }

  /** Remembers the connector id the cloud returned. */
  setConnectorId(id: string): void {
    this.setMeta('connector_id', id);
  }

  /** Forgets the connector and every printer's cloud id (the cloud deleted the connector). */
  forgetCloudIds(): void {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM meta WHERE key = 'connector_id'").run();
      this.db.prepare('UPDATE printers SET cloud_id = NULL').run();
    })();
  }

  /** The printer's identity, creating a row with a new tp_id on first sight; uri kept current. */
  printer(name: string, uri: string): PrinterIdentity {
    return this.db.transaction(() => {
      const row = this.printerRow(name);
      if (row) {
        if (row.uri !== uri) {
          this.db
            .prepare('UPDATE printers SET uri = ?, updated_at = ? WHERE name = ?')
            .run(uri, this.clock.now(), name);
        }
        return toIdentity({ ...row, uri });
      }
      const max = this.db.prepare('SELECT MAX(tp_id) AS m FROM printers').get() as { m: number | null };
      const tpId = (max.m ?? 0) + 1;
      if (tpId > MAX_TP_ID) throw new Error(`tp_id: no free value up to ${MAX_TP_ID}`);
      this.db
        .prepare(
          'INSERT INTO printers (name, cloud_id, tp_id, uuid, uri, updated_at) VALUES (?, NULL, ?, NULL, ?, ?)',
        )
        .run(name, tpId, uri, this.clock.now());
      return { name, cloudId: undefined, tpId, uuid: undefined, uri };
    })();
  }

  /** Records the cloud id and printer uuid after a create or update. */
  saveCloudPrinter(name: string, cloudId: string, uuid: string | undefined): void {
    this.db
      .prepare('UPDATE printers SET cloud_id = ?, uuid = COALESCE(?, uuid), updated_at = ? WHERE name = ?')
      .run(cloudId, uuid ?? null, this.clock.now(), name);
  }

  /** Every printer the store knows. */
  printers(): PrinterIdentity[] {
    const rows = this.db.prepare('SELECT * FROM printers ORDER BY tp_id').all() as PrinterRow[];
    return rows.map(toIdentity);
  }

  private printerRow(name: string): PrinterRow | undefined {
    return this.db.prepare('SELECT * FROM printers WHERE name = ?').get(name) as PrinterRow | undefined;
  }

  private meta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  private setMeta(key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  }
}

function toIdentity(row: PrinterRow): PrinterIdentity {
  return {
    name: row.name,
    cloudId: row.cloud_id ?? undefined,
    tpId: row.tp_id,
    uuid: row.uuid ?? undefined,
    uri: row.uri,
  };
}
