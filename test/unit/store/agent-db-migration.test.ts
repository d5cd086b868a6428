import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultBackoff } from '../../../src/lib/backoff.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { openAgentDatabase, SCHEMA_VERSION } from '../../../src/store/agent-db.js';
import { JobLedger } from '../../../src/store/job-ledger.js';
import { Outbox } from '../../../src/store/outbox.js';
import { jobOffer } from '../../support/job-offers.js';

const indexes = (db: ReturnType<typeof openAgentDatabase>) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'").all() as {
      name: string;
    }[]
  ).map((r) => r.name);

describe('agent database migration 7: the duplicate outbox index', () => {
  let dir: string;
  let path: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-db-migration-'));
    path = join(dir, 'agent.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('drops outbox_record from a version 6 database with jobs and events, keeping every row', () => {
    // A version 6 database: the current schema with the index migration 7 drops, without the
    // columns of later migrations, and data.
    const old = openAgentDatabase(path);
    old.exec('CREATE INDEX outbox_record ON outbox(job_id, seq)');
    old.exec('ALTER TABLE jobs DROP COLUMN refetch_tries; ALTER TABLE jobs DROP COLUMN refetch_failures');
    old.pragma('user_version = 6');
    const ledger = new JobLedger(old, clock);
    const outbox = new Outbox(old, clock, defaultBackoff);
    ledger.add(jobOffer('j1', { size: 3 }));
    outbox.add('j1', { kind: 'received' });
    outbox.add('j1', { kind: 'downloading' });
    outbox.add('j2', { kind: 'received' });
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
});
