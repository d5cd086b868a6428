import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { transactionRunner } from '../../../src/store/transaction-runner.js';

describe('transactionRunner', () => {
  let dir: string;
  let db: AgentDatabase;
  const count = () => (db.prepare('SELECT COUNT(*) AS n FROM meta').get() as { n: number }).n;
  const insert = (key: string) => db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, 'v');
  /** From now on, every function db.transaction() is asked to wrap, in order. */
  const recordTransactionsBuilt = (): unknown[] => {
    const built: unknown[] = [];
    const transaction = db.transaction.bind(db);
    db.transaction = ((fn: () => unknown) => {
      built.push(fn);
      return transaction(fn);
    }) as AgentDatabase['transaction'];
    return built;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tx-runner-'));
    db = openAgentDatabase(join(dir, 'agent.db'));
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds the transaction function once for every store on the database', () => {
    const built = recordTransactionsBuilt();
    const run = transactionRunner(db);
    for (let i = 0; i < 5; i++) run(() => insert(`k${i}`));
    expect(transactionRunner(db)).toBe(run);
    transactionRunner(db)(() => insert('k5'));
    expect(built).toHaveLength(1);
    expect(count()).toBe(6);
  });

  it('builds it again, once, when db.transaction is replaced after the first use', () => {
    const run = transactionRunner(db);
    run(() => insert('before'));
    const built = recordTransactionsBuilt();
    expect(run(() => insert('after').changes)).toBe(1);
    expect(run(() => 'result')).toBe('result');
    expect(built).toHaveLength(1);
    expect(count()).toBe(2);
  });

  it('commits the work, or nothing of it when it throws', () => {
    const run = transactionRunner(db);
    expect(run(() => insert('a').changes)).toBe(1);
    expect(() =>
      run(() => {
        insert('b');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(count()).toBe(1);
    expect(db.inTransaction).toBe(false);
  });

  it('nests as a savepoint: an inner failure caught by the outer work undoes only the inner writes', () => {
    const run = transactionRunner(db);
    run(() => {
      insert('outer');
      expect(() =>
        run(() => {
          insert('inner');
          throw new Error('inner');
        }),
      ).toThrow('inner');
      expect(db.inTransaction).toBe(true);
    });
    expect(db.prepare('SELECT key FROM meta ORDER BY key').all()).toEqual([{ key: 'outer' }]);
  });
});
