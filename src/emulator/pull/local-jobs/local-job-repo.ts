/**
 * Local jobs table: copy jobs a device records with CreateLocalJob / UpdateLocalJob (state and
 * the parameters of the spec's table as JSON). Borrowing the database handle; the owner of the
 * handle closes it.
 */
import type { LocalJobFields } from '../../../protocol/tpfm-local-job.js';
import type { EmulatorDatabase } from '../../store/database.js';

/** Pending, Succeeded, Failed, or closed after 24 hours without an update. */
export type LocalJobState = 'Pending' | 'Succeeded' | 'Failed' | 'closed';

/** One local job. */
export interface LocalJobRecord {
  id: string;
  organizationId: string;
  userId: string;
  printerId: string;
  type: string;
  state: LocalJobState;
  /** The parameters as last applied (Status excluded: see state). */
  fields: LocalJobFields;
  createdAt: number;
  updatedAt: number;
  /** Idempotency-Key of the CreateLocalJob that made it, when one was sent. */
  idempotencyKey?: string;
}

interface LocalRow {
  id: string;
  organization_id: string;
  user_id: string;
  printer_id: string;
  type: string;
  state: string;
  fields_json: string;
  created_at: number;
  updated_at: number;
  idempotency_key: string | null;
}

/** Reads and writes local jobs. */
export class LocalJobRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts a local job. */
  insert(job: LocalJobRecord): void {
    this.db
      .prepare(
        `INSERT INTO local_jobs (id, organization_id, user_id, printer_id, type, state, fields_json, created_at,
           updated_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        job.id,
        job.organizationId,
        job.userId,
        job.printerId,
        job.type,
        job.state,
        JSON.stringify(job.fields),
        job.createdAt,
        job.updatedAt,
        job.idempotencyKey ?? null,
      );
  }

  /** A local job by id. */
  findById(id: string): LocalJobRecord | undefined {
    const r = this.db.prepare('SELECT * FROM local_jobs WHERE id = ?').get(id) as LocalRow | undefined;
    return r && toRecord(r);
  }

  /** The id of the user's job made with this Idempotency-Key, if any. */
  findByKey(userId: string, key: string): string | undefined {
    const row = this.db
      .prepare('SELECT id FROM local_jobs WHERE user_id = ? AND idempotency_key = ?')
      .get(userId, key) as { id: string } | undefined;
    return row?.id;
  }

  /** Local jobs of one printer of an organization, newest first. */
  listByPrinter(organizationId: string, printerId: string, limit: number): LocalJobRecord[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM local_jobs WHERE organization_id = ? AND printer_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
      )
      .all(organizationId, printerId, limit) as LocalRow[];
    return rows.map(toRecord);
  }

  /** Saves state, fields and the time of the change. */
  save(id: string, state: LocalJobState, fields: LocalJobFields, updatedAt: number): void {
    this.db
      .prepare('UPDATE local_jobs SET state = ?, fields_json = ?, updated_at = ? WHERE id = ?')
      .run(state, JSON.stringify(fields), updatedAt, id);
  }

  /** Marks a job closed without touching its last update time. */
  close(id: string): void {
    this.db.prepare("UPDATE local_jobs SET state = 'closed' WHERE id = ?").run(id);
  }
}

function toRecord(r: LocalRow): LocalJobRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    userId: r.user_id,
    printerId: r.printer_id,
    type: r.type,
    state: r.state as LocalJobState,
    fields: JSON.parse(r.fields_json) as LocalJobFields,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.idempotency_key ? { idempotencyKey: r.idempotency_key } : {}),
  };
}
