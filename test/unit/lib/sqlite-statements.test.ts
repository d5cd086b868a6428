import { openSqlite } from '../../../src/lib/sqlite.js';
import { describe, expect, it } from 'vitest';
import { reuseStatements } from '../../../src/lib/sqlite-statements.js';

describe('reuseStatements', () => {
  it('compiles each SQL text once and the reused statement sees later writes', () => {
    const db = reuseStatements(openSqlite(':memory:'));
    db.prepare('CREATE TABLE t (v INTEGER)').run();
    const count = 'SELECT COUNT(*) AS n FROM t';
    expect(db.prepare(count)).toBe(db.prepare(count));
    expect(db.prepare('SELECT 1')).not.toBe(db.prepare(count));
    for (let i = 0; i < 3; i += 1) db.prepare('INSERT INTO t (v) VALUES (?)').run(i);
    expect(db.prepare(count).get()).toEqual({ n: 3 });
    db.close();
  });

  it('keeps working after a schema change (SQLite re-prepares the cached statement)', () => {
    const db = reuseStatements(openSqlite(':memory:'));
    db.prepare('CREATE TABLE t (a INTEGER)').run();
    db.prepare('INSERT INTO t (a) VALUES (1)').run();
    expect(db.prepare('SELECT * FROM t').get()).toEqual({ a: 1 });
    db.prepare('ALTER TABLE t ADD COLUMN b TEXT').run();
    expect(db.prepare('SELECT * FROM t').get()).toEqual({ a: 1, b: null });
    db.close();
  });
});
