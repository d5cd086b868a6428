import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultBackoff } from '../../../src/lib/backoff.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { openSqlite } from '../../../src/lib/sqlite.js';
import {
  type AgentDatabase,
  migrate,
  openAgentDatabase,
  SCHEMA_VERSION,
} from '../../../src/store/agent-db.js';
import { JobLedger } from '../../../src/store/job-ledger.js';
import { Outbox } from '../../../src/store/outbox.js';
import { jobOffer } from '../../support/job-offers.js';

const indexes = (db: AgentDatabase) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'").all() as {
      name: string;
    }[]
  ).map((r) => r.name);

/** A database file as an agent of schema `version` left it: the migrations up to it, WAL. */
function oldDatabase(path: string, version: number): AgentDatabase {
  const db = openSqlite(path);
  db.pragma('journal_mode = WAL');
  migrate(db, version);
  return db;
}

/**
 * Appends a row as the agents of schema versions 1-7 did: the record's last seq read from and
 * written back to event_seq, a random UUID as the row id (stored in its own column and, for a
 * job event, in the body).
 */
function appendAsBefore(
  db: AgentDatabase,
  kind: 'job-event' | 'local-job',
  key: string,
  body: object,
): string {
  const row = db.prepare('SELECT last_seq FROM event_seq WHERE job_id = ?').get(key) as
    | { last_seq: number }
    | undefined;
  const seq = (row?.last_seq ?? 0) + 1;
  db.prepare(
    'INSERT INTO event_seq (job_id, last_seq) VALUES (?, ?) ON CONFLICT(job_id) DO UPDATE SET last_seq = excluded.last_seq',
  ).run(key, seq);
  const id = randomUUID();
  const full = kind === 'job-event' ? { event_id: id, seq, at: '2026-01-01T00:00:00.000Z', ...body } : body;
  db.prepare(
    `INSERT INTO outbox (kind, job_id, seq, event_id, body_json, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(kind, key, seq, id, JSON.stringify(full), 0, 0);
  return id;
}

describe('agent database migrations of the outbox', () => {
  let dir: string;
  let path: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-db-migration-'));
    path = join(dir, 'agent.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a database of a newer schema (a downgraded agent), naming both versions, and leaves it unchanged', () => {
    const path = join(dir, 'newer.db');
    const newer = openAgentDatabase(path);
    newer.prepare("INSERT INTO meta (key, value) VALUES ('kept', 'yes')").run();
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    const refused = expect.objectContaining({
      name: 'PermanentError',
      code: 'database_version',
      message: `agent database schema version ${SCHEMA_VERSION + 1} is newer than this agent (${SCHEMA_VERSION}); upgrade the agent`,
    });
    expect(() => openAgentDatabase(path)).toThrow(refused);
    const after = openSqlite(path);
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    expect(after.prepare("SELECT value FROM meta WHERE key = 'kept'").get()).toEqual({ value: 'yes' });
    after.close();
  });

  it('7: drops outbox_record from a version 6 database with jobs and events, keeping every row', () => {
    const old = oldDatabase(path, 6);
    expect(old.pragma('user_version', { simple: true })).toBe(6);
    new JobLedger(old, clock).add(jobOffer('j1', { size: 3 }));
    appendAsBefore(old, 'job-event', 'j1', { kind: 'received' });
    appendAsBefore(old, 'job-event', 'j1', { kind: 'downloading' });
    appendAsBefore(old, 'job-event', 'j2', { kind: 'received' });
    expect(indexes(old)).toContain('outbox_record');
    old.close();

    const db = openAgentDatabase(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(indexes(db)).not.toContain('outbox_record');
      const migrated = new Outbox(db, clock, defaultBackoff);
      expect(migrated.pendingFor('j1').map((e) => e.event.kind)).toEqual(['received', 'downloading']);
      expect(migrated.pendingFor('j2').map((e) => e.event.seq)).toEqual([1]);
      expect(new JobLedger(db, clock).get('j1')?.state).toBe('offered');
      // The constraint's own index still serves a job's events in seq order and keeps seq unique.
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT * FROM outbox WHERE job_id = ? ORDER BY seq')
        .all('j1') as { detail: string }[];
      expect(plan.map((p) => p.detail).join('\n')).toMatch(/USING INDEX sqlite_autoindex_outbox/);
      expect(() =>
        db
          .prepare(
            "INSERT INTO outbox (kind, job_id, seq, event_id, body_json, next_attempt_at, created_at) VALUES ('job-event', 'j1', 1, 'x', '{}', 0, 0)",
          )
          .run(),
      ).toThrow(/UNIQUE/);
      expect(migrated.add('j1', { kind: 'printing' }).seq).toBe(3);
    } finally {
      db.close();
    }
  });

  it('9 (through 8): rebuilds the outbox of a version 7 database without the event_id index, keeping rows, order, ids, row ids and every next seq', () => {
    const old = oldDatabase(path, 7);
    expect(old.pragma('user_version', { simple: true })).toBe(7);
    const ledger = new JobLedger(old, clock);
    ledger.add(jobOffer('j1', { size: 3 }));
    ledger.add(jobOffer('j2', { size: 3 }));
    // j1: two events delivered (their rows gone), two pending; j2: everything delivered;
    // c1: a copy job's two pending operations; j3: one pending event, its job not in the ledger.
    const delivered = [
      appendAsBefore(old, 'job-event', 'j1', { kind: 'received' }),
      appendAsBefore(old, 'job-event', 'j1', { kind: 'downloading' }),
    ];
    appendAsBefore(old, 'job-event', 'j2', { kind: 'received' });
    appendAsBefore(old, 'job-event', 'j2', { kind: 'completed' });
    const pendingIds = [
      appendAsBefore(old, 'job-event', 'j1', { kind: 'printing' }),
      appendAsBefore(old, 'local-job', 'c1', { op: 'create' }),
      appendAsBefore(old, 'job-event', 'j1', { kind: 'completed' }),
      appendAsBefore(old, 'local-job', 'c1', { op: 'update' }),
      appendAsBefore(old, 'job-event', 'j3', { kind: 'failed' }),
    ];
    old.prepare("DELETE FROM outbox WHERE job_id = 'j2' OR event_id IN (?, ?)").run(...delivered);
    // The newest row delivered too (AUTOINCREMENT's high mark above every row left), then one more.
    const newest = appendAsBefore(old, 'job-event', 'j4', { kind: 'received' });
    old.prepare('DELETE FROM outbox WHERE event_id = ?').run(newest);
    const before = old.prepare('SELECT * FROM outbox ORDER BY id').all() as Record<string, unknown>[];
    const highMark = old.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").get() as {
      seq: number;
    };
    expect(highMark.seq).toBeGreaterThan(Math.max(...before.map((r) => r.id as number)));
    expect(indexes(old)).toContain('sqlite_autoindex_outbox_1');
    old.close();

    const db = openAgentDatabase(path);
    try {
      expect(SCHEMA_VERSION).toBe(9);
      expect(db.pragma('user_version', { simple: true })).toBe(9);
      // Every row kept with its id, key, seq, row id, body and delivery state, in the same order.
      const after = db.prepare('SELECT * FROM outbox ORDER BY id').all() as Record<string, unknown>[];
      expect(after).toEqual(before);
      expect(after.map((r) => r.event_id)).toEqual(pendingIds);
      // The event_id index is gone; (job_id, seq) stays unique; the head index is back.
      expect(indexes(db).sort()).toEqual(['outbox_kind_head', 'sqlite_autoindex_outbox_1']);
      expect(() =>
        db
          .prepare(
            "INSERT INTO outbox (kind, job_id, seq, event_id, body_json, next_attempt_at, created_at) VALUES ('job-event', 'j1', 3, 'x', '{}', 0, 0)",
          )
          .run(),
      ).toThrow(/UNIQUE/);
      const outbox = new Outbox(db, clock, defaultBackoff);
      expect(outbox.pendingFor('j1').map((e) => [e.event.seq, e.event.kind, e.event.event_id])).toEqual([
        [3, 'printing', pendingIds[0]],
        [4, 'completed', pendingIds[2]],
      ]);
      expect(outbox.rowsOf('c1').map((r) => [r.seq, r.rowId])).toEqual([
        [1, pendingIds[1]],
        [2, pendingIds[3]],
      ]);
      // The next seq of each record follows its last, pending or delivered; the next row id
      // follows AUTOINCREMENT's high mark, not the highest row left.
      const next = outbox.add('j1', { kind: 'progress', pages_printed: 1 });
      expect(next.seq).toBe(5);
      expect(outbox.add('j2', { kind: 'progress', pages_printed: 1 }).seq).toBe(3);
      expect(outbox.add('j4', { kind: 'progress', pages_printed: 1 }).seq).toBe(2);
      expect(outbox.add('j5', { kind: 'received' }).seq).toBe(1);
      const [j1Last] = outbox.pendingFor('j1').slice(-1);
      expect(j1Last?.id).toBe(highMark.seq + 1);
      expect(next.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'event_id_namespace'").get()).toEqual({
        value: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
    } finally {
      db.close();
    }
  });
});
