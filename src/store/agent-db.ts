/**
 * The agent's SQLite database: opening (WAL for files), and the numbered migrations that build
 * the identity, printer, job ledger and outbox tables. One database per data directory.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { openingDatabase } from '../lib/database-unreadable.js';
import { PermanentError } from '../lib/errors.js';
import { makePrivateFile } from '../lib/private-paths.js';
import { openSqlite, type SqliteDatabase } from '../lib/sqlite.js';
import type { StatementProfile } from '../lib/sqlite-profile.js';
import { reuseStatements } from '../lib/sqlite-statements.js';

/** An open agent database (lib/sqlite.ts); closed by whoever opened it. */
export type AgentDatabase = SqliteDatabase;

/** Numbered migrations; index + 1 is the schema version it brings the database to. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE printers (
     name TEXT PRIMARY KEY,
     cloud_id TEXT,
     tp_id INTEGER NOT NULL UNIQUE,
     uuid TEXT,
     uri TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE jobs (
     job_id TEXT PRIMARY KEY,
     printer_id TEXT NOT NULL,
     offer_json TEXT NOT NULL,
     state TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_retry_at INTEGER,
     last_error TEXT,
     printer_job_id TEXT,
     spool_path TEXT,
     first_try_at INTEGER,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX jobs_state ON jobs(state);
   CREATE TABLE event_seq (job_id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL);
   CREATE TABLE outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     job_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     event_id TEXT NOT NULL UNIQUE,
     body_json TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last_error TEXT,
     created_at INTEGER NOT NULL,
     UNIQUE (job_id, seq)
   );`,
  `CREATE TABLE printer_sync (
     tp_id INTEGER PRIMARY KEY,
     cloud_id TEXT,
     uuid TEXT,
     record_json TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
  // Whether the current Print-Job attempt sent the whole document. Rows older than the column
  // count as sent (what the agent assumed before it recorded this).
  `ALTER TABLE jobs ADD COLUMN document_sent INTEGER NOT NULL DEFAULT 1;`,
  `ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'job-event';
   CREATE INDEX outbox_kind_head ON outbox(kind, next_attempt_at);
   CREATE INDEX outbox_record ON outbox(job_id, seq);
   CREATE TABLE local_jobs (
     record_id TEXT PRIMARY KEY,
     station TEXT NOT NULL,
     printer TEXT NOT NULL,
     user_id TEXT NOT NULL,
     source TEXT NOT NULL,
     fields_json TEXT NOT NULL,
     status TEXT NOT NULL,
     cloud_job_id TEXT,
     delivered_json TEXT,
     delivered_status TEXT,
     delivered_at INTEGER,
     tracking TEXT,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX local_jobs_user ON local_jobs(user_id, started_at);`,
  // When a request carrying a copy job's final Status first left for the cloud: a later answer
  // 13 ("no longer updatable") to it is then taken as done, even after a crash.
  `ALTER TABLE local_jobs ADD COLUMN final_sent_at INTEGER;`,
  // The job path's exactly-once facts (docs/agent-jobs.md): document_sent now means the printer
  // answered the request carrying the document; document_flushed that every byte of it was with
  // the operating system (what document_sent recorded before, hence the copy); the printer jobs
  // of earlier submit attempts (never taken for the current one); and the arrival order a restart
  // resumes by (a sequence: milliseconds tie).
  `ALTER TABLE jobs ADD COLUMN document_flushed INTEGER NOT NULL DEFAULT 0;
   UPDATE jobs SET document_flushed = document_sent;
   ALTER TABLE jobs ADD COLUMN earlier_printer_jobs TEXT NOT NULL DEFAULT '[]';
   ALTER TABLE jobs ADD COLUMN arrival INTEGER NOT NULL DEFAULT 0;
   UPDATE jobs SET arrival = rowid;
   CREATE INDEX jobs_arrival ON jobs(arrival);`,
  // outbox_record indexed the columns the UNIQUE (job_id, seq) constraint's index already holds:
  // each event's commit wrote its pages twice (docs/performance.md, "Round 5: the cost of a commit").
  `DROP INDEX outbox_record;`,
  // The wait of a `spooled` job whose document (lost in a restart) could not be fetched again,
  // so a restart resumes it where it stood (docs/agent-jobs.md, "Downloading"): the failed tries
  // in a row (the backoff step; above 0 while the job waits, next_retry_at its next try and
  // last_error why the last one failed) and those of them that count toward download_attempts.
  `ALTER TABLE jobs ADD COLUMN refetch_tries INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE jobs ADD COLUMN refetch_failures INTEGER NOT NULL DEFAULT 0;`,
  // The outbox's shape (docs/performance.md, "Round 7: the outbox's shape"). A row's event_id is
  // now derived from its key and seq (event-ids.ts, in the namespace drawn here), so it needs no
  // UNIQUE index: the table is rebuilt without it, every row, id and AUTOINCREMENT's high mark
  // kept. A record's last seq is read from its pending rows (the (job_id, seq) index) and, once
  // they all left, from event_seq, which the trigger writes as a record's highest pending row
  // leaves: a seq never goes back, and an event no longer writes event_seq. event_seq's rows of
  // versions 1-8 (every record's last seq) are that floor already.
  `CREATE TABLE outbox_v8 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL DEFAULT 'job-event',
     job_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     event_id TEXT NOT NULL,
     body_json TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last_error TEXT,
     created_at INTEGER NOT NULL,
     UNIQUE (job_id, seq)
   );
   INSERT INTO outbox_v8 (id, kind, job_id, seq, event_id, body_json, attempts, next_attempt_at, last_error, created_at)
     SELECT id, kind, job_id, seq, event_id, body_json, attempts, next_attempt_at, last_error, created_at FROM outbox;
   DELETE FROM sqlite_sequence WHERE name = 'outbox_v8';
   INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox_v8', seq FROM sqlite_sequence WHERE name = 'outbox';
   DROP TABLE outbox;
   ALTER TABLE outbox_v8 RENAME TO outbox;
   CREATE INDEX outbox_kind_head ON outbox(kind, next_attempt_at);
   CREATE TRIGGER outbox_seq_floor AFTER DELETE ON outbox
     WHEN NOT EXISTS (SELECT 1 FROM outbox WHERE job_id = old.job_id AND seq > old.seq)
   BEGIN
     INSERT INTO event_seq (job_id, last_seq) VALUES (old.job_id, old.seq)
       ON CONFLICT(job_id) DO UPDATE SET last_seq = MAX(last_seq, excluded.last_seq);
   END;
   INSERT OR IGNORE INTO meta (key, value) VALUES ('event_id_namespace', lower(hex(randomblob(16))));`,
];

/** The schema version a fully migrated database has. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** How a database is opened for measuring it (bench:floor's statement profile); none by default. */
export interface AgentDatabaseOptions {
  /**
   * Counts and times every statement and transaction (lib/sqlite-profile.ts). A profiled file
   * database also keeps its WAL whole (no automatic checkpoint), so the `-wal` file's growth is
   * the pages its commits wrote.
   */
  profile?: StatementProfile;
}

/**
 * Opens (creating when missing) the database at `path` (a file, or ':memory:') and applies
 * pending migrations in one transaction each. The caller closes it with `db.close()`.
 */
export function openAgentDatabase(path: string, options: AgentDatabaseOptions = {}): AgentDatabase {
  if (path !== ':memory:' && existsSync(dirname(path))) makePrivateDatabase(path);
  return openingDatabase(path, 'agent', () => {
    const opened = openSqlite(path);
    const db = reuseStatements(options.profile ? options.profile.attach(opened) : opened);
    try {
      if (path !== ':memory:') db.pragma('journal_mode = WAL');
      if (path !== ':memory:' && options.profile) db.pragma('wal_autocheckpoint = 0');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  });
}

/**
 * The database holds user names, e-mail addresses and document names: the file is 0600 before
 * SQLite opens it (its -wal and -shm take the main file's mode), and a database or journal left
 * looser by an older version is tightened.
 */
function makePrivateDatabase(path: string): void {
  makePrivateFile(path);
  for (const journal of [`${path}-wal`, `${path}-shm`]) if (existsSync(journal)) makePrivateFile(journal);
}

/**
 * Applies every migration newer than the database's user_version, up to `upTo` (the newest by
 * default; an older version builds a database as an older agent left it, for migration tests).
 */
export function migrate(db: AgentDatabase, upTo: number = MIGRATIONS.length): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new PermanentError(
      'database_version',
      `agent database schema version ${current} is newer than this agent (${MIGRATIONS.length}); upgrade the agent`,
    );
  }
  for (let version = current; version < Math.min(upTo, MIGRATIONS.length); version++) {
    const sql = MIGRATIONS[version] as string;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
