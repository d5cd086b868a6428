/**
 * Counts the commits a piece of code makes on a better-sqlite3 database, and the writing
 * statements it runs: a writing statement run outside a transaction is a commit of its own
 * (autocommit), an outermost db.transaction() that returns is one commit whatever it ran.
 * Wraps the instance's prepare() and transaction() in place; restore() puts them back.
 */
import type { AgentDatabase } from '../../src/store/agent-db.js';

/** What the wrapped database did since watchCommits() (or the last reset()). */
export interface CommitCounter {
  commits: number;
  /** Writing statements run (INSERT, UPDATE, DELETE), inside a transaction or not. */
  writes: number;
  reset(): void;
  restore(): void;
}

/** Starts counting the commits and writing statements of `db`. */
export function watchCommits(db: AgentDatabase): CommitCounter {
  const prepare = db.prepare;
  const transaction = db.transaction;
  const counter: CommitCounter = {
    commits: 0,
    writes: 0,
    reset() {
      counter.commits = 0;
      counter.writes = 0;
    },
    restore() {
      db.prepare = prepare;
      db.transaction = transaction;
    },
  };
  db.prepare = ((sql: string) => {
    const statement = prepare.call(db, sql);
    if (statement.reader) return statement;
    return new Proxy(statement, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'run' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const outside = !db.inTransaction;
          const result = value.apply(target, args);
          counter.writes++;
          if (outside) counter.commits++;
          return result;
        };
      },
    });
  }) as AgentDatabase['prepare'];
  db.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const wrapped = transaction.call(db, fn);
    return (...args: unknown[]) => {
      const outermost = !db.inTransaction;
      const result = wrapped(...args);
      if (outermost) counter.commits++;
      return result;
    };
  }) as AgentDatabase['transaction'];
  return counter;
}
