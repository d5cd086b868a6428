/**
 * The ledger of bench:floor's bare exactly-once line: the job rows and event rows exactly-once
 * needs, in bare better-sqlite3 with the agent's pragmas (WAL, synchronous NORMAL, foreign keys
 * on). Each method is one commit: the claim (the job and its first event), `submitting`, the
 * flush with the printer job id, `submitted` with its event, the end with its event, and the
 * acknowledgement of an event batch (its rows deleted in one statement).
 */
import type BetterSqlite3 from 'better-sqlite3';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    offer_json TEXT NOT NULL,
    state TEXT NOT NULL,
    printer_job_id INTEGER,
    document_flushed INTEGER NOT NULL DEFAULT 0,
    document_sent INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES jobs(job_id),
    event_json TEXT NOT NULL
  );`;

/** The ledger's commits; the event methods return the outbox row's id. */
export interface BareLedger {
  /** Commit 1: the job and its `received` event; undefined when the job was there already. */
  claimed(jobId: string, offerJson: string, eventJson: string): number | undefined;
  submitting(jobId: string): void;
  flushed(jobId: string, printerJobId: number): void;
  submitted(jobId: string, eventJson: string): number;
  ended(jobId: string, state: string, eventJson: string): number;
  /** The rows of an acknowledged batch leave. */
  acknowledge(outboxIds: number[]): void;
  close(): void;
}

export function openLedger(db: BetterSqlite3.Database): BareLedger {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  const insertJob = db.prepare(
    "INSERT OR IGNORE INTO jobs (job_id, offer_json, state, updated_at) VALUES (?, ?, 'offered', ?)",
  );
  const insertEvent = db.prepare('INSERT INTO outbox (job_id, event_json) VALUES (?, ?)');
  const setState = db.prepare('UPDATE jobs SET state = ?, updated_at = ? WHERE job_id = ?');
  const setFlushed = db.prepare(
    'UPDATE jobs SET printer_job_id = ?, document_flushed = 1, updated_at = ? WHERE job_id = ?',
  );
  const setSent = db.prepare(
    "UPDATE jobs SET state = 'submitted', document_sent = 1, updated_at = ? WHERE job_id = ?",
  );
  const deleteEvents = db.prepare('DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))');
  const event = (jobId: string, eventJson: string) =>
    Number(insertEvent.run(jobId, eventJson).lastInsertRowid);
  return {
    claimed: db.transaction((jobId: string, offerJson: string, eventJson: string) =>
      insertJob.run(jobId, offerJson, Date.now()).changes === 0 ? undefined : event(jobId, eventJson),
    ),
    submitting: (jobId) => void setState.run('submitting', Date.now(), jobId),
    flushed: (jobId, printerJobId) => void setFlushed.run(printerJobId, Date.now(), jobId),
    submitted: db.transaction((jobId: string, eventJson: string) => {
      setSent.run(Date.now(), jobId);
      return event(jobId, eventJson);
    }),
    ended: db.transaction((jobId: string, state: string, eventJson: string) => {
      setState.run(state, Date.now(), jobId);
      return event(jobId, eventJson);
    }),
    acknowledge: (outboxIds) => void deleteEvents.run(JSON.stringify(outboxIds)),
    close: () => db.close(),
  };
}
