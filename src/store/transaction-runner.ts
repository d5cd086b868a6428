/**
 * One transaction function per database, built once: `db.transaction(work)` builds a wrapper
 * (and its deferred, immediate and exclusive variants) each time it is called, which on the job
 * path's commits cost 13-15 % of the store's CPU per job (docs/performance.md, "Round 5: the cost
 * of a commit"). The runner takes the work as its argument instead. Called inside a transaction
 * it nests as a savepoint, as any better-sqlite3 transaction function does: the work's writes
 * commit with the outer transaction, or roll back to the savepoint when the work throws.
 */
import type { AgentDatabase } from './agent-db.js';

/** Runs `work` in one transaction (or savepoint, when one is open) and returns its result. */
export type TransactionRunner = <T>(work: () => T) => T;

const runners = new WeakMap<AgentDatabase, TransactionRunner>();

/**
 * The database's transaction runner, built on first use and shared by every store on it. It is
 * built again only when `db.transaction` itself was replaced (a test that counts commits wraps it).
 */
export function transactionRunner(db: AgentDatabase): TransactionRunner {
  let runner = runners.get(db);
  if (!runner) {
    let from = db.transaction;
    let run = from.call(db, (work: () => unknown) => work());
    runner = <T>(work: () => T): T => {
      if (db.transaction !== from) {
        from = db.transaction;
        run = from.call(db, (work: () => unknown) => work());
      }
      return run(work) as T;
    };
    runners.set(db, runner);
  }
  return runner;
}
