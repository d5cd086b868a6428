/**
 * The ledger's record of a `spooled` job waiting for its document (a restart lost it and the cloud
 * could not serve it again): the failed tries in a row, the counted ones, the next try and the
 * last error sit in the job's row, so they outlive the process (docs/agent-jobs.md,
 * "Downloading"). Migration 8 adds the two counts to an older database, every job at 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { openAgentDatabase, SCHEMA_VERSION } from '../../../src/store/agent-db.js';
import { JobLedger } from '../../../src/store/job-ledger.js';
import { jobOffer } from '../../support/job-offers.js';

describe('the ledger keeps a document wait across a restart', () => {
  let dir: string;
  let path: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  /** A job recorded `spooled` (its document in memory: no spool file). */
  const spooled = (ledger: JobLedger, id: string) => {
    ledger.add(jobOffer(id, { size: 3 }));
    ledger.move(id, 'downloading');
    ledger.move(id, 'spooled');
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waitpersist-ledger-'));
    path = join(dir, 'agent.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records the tries, the counted failures, the next try and the error; reopened, the row still has them', () => {
    const db = openAgentDatabase(path);
    const ledger = new JobLedger(db, clock);
    spooled(ledger, 'A');
    spooled(ledger, 'B');
    expect(ledger.get('A')).toMatchObject({ refetchTries: 0, refetchFailures: 0 });
    expect(ledger.refetchWaits()).toBe(0);
    const due = clock.now() + 4_000;
    expect(
      ledger.recordRefetchWait('A', {
        tries: 3,
        failures: 1,
        nextRetryAt: due,
        lastError: '503 unavailable',
      }),
    ).toEqual(ledger.get('A'));
    db.close();

    const reopened = openAgentDatabase(path);
    try {
      const again = new JobLedger(reopened, clock);
      expect(again.get('A')).toMatchObject({
        state: 'spooled',
        refetchTries: 3,
        refetchFailures: 1,
        nextRetryAt: due,
        lastError: '503 unavailable',
      });
      expect(again.get('B')).toMatchObject({ refetchTries: 0, refetchFailures: 0 });
      expect(again.refetchWaits()).toBe(1);

      // Fetched: the wait ends, the error stays as the job's last one.
      again.clearRefetchWait('A');
      expect(again.get('A')).toMatchObject({
        refetchTries: 0,
        refetchFailures: 0,
        nextRetryAt: undefined,
        lastError: '503 unavailable',
      });
      expect(again.refetchWaits()).toBe(0);
    } finally {
      reopened.close();
    }
  });

  it('counts only jobs still `spooled`, and records no wait for a job that moved on', () => {
    const db = openAgentDatabase(':memory:');
    try {
      const ledger = new JobLedger(db, clock);
      spooled(ledger, 'A');
      ledger.recordRefetchWait('A', { tries: 1, failures: 1, nextRetryAt: clock.now(), lastError: 'e' });
      ledger.move('A', 'cancelled');
      expect(ledger.refetchWaits()).toBe(0);
      spooled(ledger, 'C');
      ledger.move('C', 'submitting', { attempt: true });
      expect(
        ledger.recordRefetchWait('C', { tries: 1, failures: 1, nextRetryAt: clock.now(), lastError: 'e' }),
      ).toMatchObject({ state: 'submitting', refetchTries: 0 });
    } finally {
      db.close();
    }
  });

  it('migration 8 gives the jobs of a version 7 database no wait, keeping every row', () => {
    const old = openAgentDatabase(path);
    const ledger = new JobLedger(old, clock);
    spooled(ledger, 'A');
    ledger.move('A', 'submitting', { attempt: true });
    ledger.move('A', 'spooled', { nextRetryAt: clock.now() + 50, lastError: 'busy' });
    old.exec('ALTER TABLE jobs DROP COLUMN refetch_tries; ALTER TABLE jobs DROP COLUMN refetch_failures');
    old.pragma('user_version = 7');
    old.close();

    const db = openAgentDatabase(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(new JobLedger(db, clock).get('A')).toMatchObject({
        state: 'spooled',
        attempts: 1,
        nextRetryAt: clock.now() + 50,
        lastError: 'busy',
        refetchTries: 0,
        refetchFailures: 0,
      });
    } finally {
      db.close();
    }
  });
});
