/**
 * Copy jobs the agent recorded (local jobs of the /TPFM/ protocol): one row per card session
 * that produced copies, with the latest parameters and what the cloud has acknowledged so far,
 * and their operations (create, update, finish) queued in the shared outbox as `local-job` rows
 * keyed by the record id. Every change and its outbox row are written in one transaction, so a
 * crash never leaves one without the other. The database is owned by the caller.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { LocalJobFields, LocalJobStatus } from '../protocol/tpfm-local-job.js';
import type { AgentDatabase } from './agent-db.js';
import type { Outbox } from './outbox.js';

/** Final states of a copy job. */
export type FinalStatus = Exclude<LocalJobStatus, 'Pending'>;

/**
 * How the cloud learned of the record: `pending` (CreateLocalJob, then updates), `single`
 * (one CreateLocalJob with the final Status: the outage outlasted the Pending window or the
 * session was over before the cloud was reached), `continued` (the cloud closed the Pending job
 * during an outage; the rest was sent as a second, single-request job).
 */
export type TrackingMode = 'pending' | 'single' | 'continued';

/** One operation of a record, as queued in the outbox. */
export interface LocalJobOp {
  op: 'create' | 'update' | 'finish';
  /** Parameters set by this operation (for create: all known so far). */
  fields: LocalJobFields;
  status?: FinalStatus;
  /** Epoch ms the operation was recorded. */
  at: number;
}

/** A recorded copy job. */
export interface LocalJobRecord {
  recordId: string;
  station: string;
  printer: string;
  /** The card holder's user id (a secret: never log it). */
  userId: string;
  source: string;
  fields: LocalJobFields;
  status: LocalJobStatus;
  cloudJobId?: string;
  /** The parameters the cloud has acknowledged for cloudJobId. */
  delivered: LocalJobFields;
  deliveredStatus?: LocalJobStatus;
  deliveredAt?: number;
  tracking?: TrackingMode;
  startedAt: number;
  endedAt?: number;
  /** Epoch ms a request carrying the final Status first left for the cloud (see finalSending). */
  finalSentAt?: number;
}

/** What the cloud acknowledged in one request. */
export interface LocalJobDelivery {
  cloudJobId: string;
  delivered: LocalJobFields;
  deliveredStatus: LocalJobStatus;
  tracking: TrackingMode;
}

interface Row {
  record_id: string;
  station: string;
  printer: string;
  user_id: string;
  source: string;
  fields_json: string;
  status: string;
  cloud_job_id: string | null;
  delivered_json: string | null;
  delivered_status: string | null;
  delivered_at: number | null;
  tracking: string | null;
  started_at: number;
  ended_at: number | null;
  final_sent_at: number | null;
}

/** See the file comment. */
export class LocalJobStore {
  constructor(
    private readonly db: AgentDatabase,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
  ) {}

  /** Records a new copy job with the parameters seen so far and queues its CreateLocalJob. */
  open(job: {
    station: string;
    printer: string;
    userId: string;
    source: string;
    fields: LocalJobFields;
  }): string {
    const recordId = `copy:${randomUUID()}`;
    const now = this.clock.now();
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO local_jobs (record_id, station, printer, user_id, source, fields_json, status, started_at,
             updated_at) VALUES (?, ?, ?, ?, ?, ?, 'Pending', ?, ?)`,
        )
        .run(
          recordId,
          job.station,
          job.printer,
          job.userId,
          job.source,
          JSON.stringify(job.fields),
          now,
          now,
        );
      this.queue(recordId, { op: 'create', fields: job.fields, at: now });
    })();
    return recordId;
  }

  /** Applies changed parameters and queues them (nothing when `changed` is empty). */
  update(recordId: string, changed: LocalJobFields): void {
    if (Object.keys(changed).length === 0) return;
    this.db.transaction(() => {
      const record = this.require(recordId);
      this.saveFields(recordId, { ...record.fields, ...changed }, record.status);
      this.queue(recordId, { op: 'update', fields: changed, at: this.clock.now() });
    })();
  }

  /** The session ended: final status and last changes, queued as one operation. */
  finish(recordId: string, status: FinalStatus, changed: LocalJobFields): void {
    this.db.transaction(() => {
      const record = this.require(recordId);
      this.saveFields(recordId, { ...record.fields, ...changed }, status);
      this.db
        .prepare('UPDATE local_jobs SET ended_at = ? WHERE record_id = ?')
        .run(this.clock.now(), recordId);
      this.queue(recordId, { op: 'finish', fields: changed, status, at: this.clock.now() });
    })();
  }

  /** Stores what the cloud acknowledged; the caller removes the delivered outbox rows. */
  delivered(recordId: string, delivery: LocalJobDelivery): void {
    this.db
      .prepare(
        `UPDATE local_jobs SET cloud_job_id = ?, delivered_json = ?, delivered_status = ?, delivered_at = ?,
           tracking = ? WHERE record_id = ?`,
      )
      .run(
        delivery.cloudJobId,
        JSON.stringify(delivery.delivered),
        delivery.deliveredStatus,
        this.clock.now(),
        delivery.tracking,
        recordId,
      );
  }

  /**
   * A request carrying the final Status is about to leave for the cloud. Written before it is
   * sent, so a resend (in this run or after a crash that lost the answer) knows the cloud may
   * already hold the final Status; the first time is kept.
   */
  finalSending(recordId: string): void {
    this.db
      .prepare('UPDATE local_jobs SET final_sent_at = COALESCE(final_sent_at, ?) WHERE record_id = ?')
      .run(this.clock.now(), recordId);
  }

  /** The cloud no longer takes updates for the record's job (it closed it): its window is over. */
  closedAtCloud(recordId: string): void {
    this.db.prepare('UPDATE local_jobs SET delivered_at = 0 WHERE record_id = ?').run(recordId);
  }

  /** Ids of records whose session never ended (the agent stopped or crashed during it). */
  unfinished(): string[] {
    const rows = this.db
      .prepare('SELECT record_id FROM local_jobs WHERE ended_at IS NULL ORDER BY rowid')
      .all() as {
      record_id: string;
    }[];
    return rows.map((r) => r.record_id);
  }

  /** One record, or undefined. */
  get(recordId: string): LocalJobRecord | undefined {
    const row = this.db.prepare('SELECT * FROM local_jobs WHERE record_id = ?').get(recordId) as
      | Row
      | undefined;
    return row && toRecord(row);
  }

  /** The newest records, optionally of one user, newest first. */
  recent(options: { userId?: string; limit?: number } = {}): LocalJobRecord[] {
    const rows = (
      options.userId === undefined
        ? this.db
            .prepare('SELECT * FROM local_jobs ORDER BY started_at DESC, rowid DESC LIMIT ?')
            .all(options.limit ?? 50)
        : this.db
            .prepare(
              'SELECT * FROM local_jobs WHERE user_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?',
            )
            .all(options.userId, options.limit ?? 50)
    ) as Row[];
    return rows.map(toRecord);
  }

  private queue(recordId: string, op: LocalJobOp): void {
    this.outbox.append('local-job', recordId, () => op);
  }

  private saveFields(recordId: string, fields: LocalJobFields, status: LocalJobStatus): void {
    this.db
      .prepare('UPDATE local_jobs SET fields_json = ?, status = ?, updated_at = ? WHERE record_id = ?')
      .run(JSON.stringify(fields), status, this.clock.now(), recordId);
  }

  private require(recordId: string): LocalJobRecord {
    const record = this.get(recordId);
    if (!record) throw new Error(`no copy job ${recordId} in the store`);
    return record;
  }
}

function toRecord(r: Row): LocalJobRecord {
  return {
    recordId: r.record_id,
    station: r.station,
    printer: r.printer,
    userId: r.user_id,
    source: r.source,
    fields: JSON.parse(r.fields_json) as LocalJobFields,
    status: r.status as LocalJobStatus,
    ...(r.cloud_job_id ? { cloudJobId: r.cloud_job_id } : {}),
    delivered: r.delivered_json ? (JSON.parse(r.delivered_json) as LocalJobFields) : {},
    ...(r.delivered_status ? { deliveredStatus: r.delivered_status as LocalJobStatus } : {}),
    ...(r.delivered_at !== null ? { deliveredAt: r.delivered_at } : {}),
    ...(r.tracking ? { tracking: r.tracking as TrackingMode } : {}),
    startedAt: r.started_at,
    ...(r.ended_at !== null ? { endedAt: r.ended_at } : {}),
    ...(r.final_sent_at !== null ? { finalSentAt: r.final_sent_at } : {}),
  };
}
