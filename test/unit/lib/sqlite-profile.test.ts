import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dumpProfileOnSignal, type ProfileDump } from '../../../src/cli/sql-profile-dump.js';
import { profileInterval, StatementProfile } from '../../../src/lib/sqlite-profile.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { transactionRunner } from '../../../src/store/transaction-runner.js';

describe('StatementProfile', () => {
  let dir: string;
  let db: AgentDatabase;
  let profile: StatementProfile;
  // A table of the test's own: the agent's tables hold rows of their own (meta's row-id namespace).
  const INSERT = 'INSERT INTO scratch (key, value) VALUES (?, ?)';
  const COUNT = 'SELECT COUNT(*) AS n FROM scratch';
  const figuresOf = (sql: string) => profile.snapshot().statements.find((s) => s.sql === sql);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sql-profile-'));
    profile = new StatementProfile(2);
    db = openAgentDatabase(join(dir, 'agent.db'), { profile });
    db.exec('CREATE TABLE scratch (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts each run of a statement by its SQL text, inside a transaction or not', () => {
    const run = transactionRunner(db);
    db.prepare(INSERT).run('a', '1');
    run(() => {
      db.prepare(INSERT).run('b', '2');
      db.prepare(INSERT).run('c', '3');
    });
    expect((db.prepare(COUNT).get() as { n: number }).n).toBe(3);
    expect(figuresOf(INSERT)).toMatchObject({ runs: 3, inTransaction: 2 });
    expect(figuresOf(INSERT)?.micros).toBeGreaterThan(0);
    expect(figuresOf(COUNT)).toMatchObject({ runs: 1, inTransaction: 0 });
  });

  it('times outermost transactions once, a nested one inside its outer one', () => {
    const run = transactionRunner(db);
    const before = profile.snapshot();
    run(() => {
      db.prepare(INSERT).run('a', '1');
      run(() => db.prepare(INSERT).run('b', '2'));
    });
    const { transactions } = profileInterval(before, profile.snapshot());
    expect(transactions.count).toBe(1);
    expect(transactions.micros).toBeGreaterThanOrEqual(transactions.statementMicros);
    expect(transactions.statementMicros).toBeGreaterThan(0);
    expect(transactions.commitMicros).toBeGreaterThan(0);
    expect(
      transactions.beginMicros + transactions.commitMicros + transactions.statementMicros,
    ).toBeLessThanOrEqual(transactions.micros);
    expect(figuresOf(INSERT)).toMatchObject({ runs: 2, inTransaction: 2 });
  });

  it('still rolls a failing transaction back', () => {
    const run = transactionRunner(db);
    expect(() =>
      run(() => {
        db.prepare(INSERT).run('a', '1');
        throw new Error('work failed');
      }),
    ).toThrow('work failed');
    expect((db.prepare(COUNT).get() as { n: number }).n).toBe(0);
  });

  it('names the callers of sampled runs', () => {
    function recordSetting(key: string) {
      db.prepare(INSERT).run(key, 'v');
    }
    for (let i = 0; i < 4; i++) recordSetting(`k${i}`);
    expect(figuresOf(INSERT)?.callers.some((c) => c.includes('recordSetting'))).toBe(true);
  });

  it('gives an interval: only the runs between two snapshots', () => {
    db.prepare(INSERT).run('a', '1');
    const before = profile.snapshot();
    db.prepare(INSERT).run('b', '2');
    db.prepare(INSERT).run('c', '3');
    const interval = profileInterval(before, profile.snapshot());
    expect(interval.statements.map((s) => [s.sql, s.runs])).toEqual([[INSERT, 2]]);
  });

  it('keeps the WAL whole, so its growth counts the pages written', () => {
    const wal = join(dir, 'agent.db-wal');
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const size = statSync(wal).size;
    db.prepare(INSERT).run('a', '1');
    expect(statSync(wal).size).toBeGreaterThan(size);
  });

  it('is written to its file, private, on each signal', () => {
    const signals = new EventEmitter();
    const file = join(dir, 'profile.json');
    const stop = dumpProfileOnSignal(file, profile, join(dir, 'agent.db-wal'), signals);
    db.prepare(INSERT).run('a', '1');
    signals.emit('SIGUSR2');
    signals.emit('SIGUSR2');
    stop();
    const dump = JSON.parse(readFileSync(file, 'utf8')) as ProfileDump;
    expect(dump.taken).toBe(2);
    expect(dump.walBytes).toBeGreaterThan(0);
    expect(dump.statements.find((s) => s.sql === INSERT)?.runs).toBe(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('a database opened without a profile', () => {
  it('runs its statements unwrapped and checkpoints as usual', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sql-profile-off-'));
    const db = openAgentDatabase(join(dir, 'agent.db'));
    try {
      const statement = db.prepare('SELECT 1');
      expect(Object.hasOwn(statement, 'run')).toBe(false);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
