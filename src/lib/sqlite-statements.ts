/**
 * Prepared-statement reuse for SQLite databases (lib/sqlite.ts). Repositories call `db.prepare(sql)` where they
 * need a statement, which keeps each query next to its use; compiling the same SQL again on
 * every call cost several percent of the agent's and the emulator's CPU per job. After
 * `reuseStatements(db)`, `prepare` returns the statement compiled the first time for that SQL.
 * Safe because no caller keeps an iterator open across calls, and a caller that sets a
 * statement's mode (pluck, raw, expand, safeIntegers) sets it on every call, on SQL text that
 * no other caller prepares; one that needs anything else must prepare on a plain handle.
 */
import type { SqliteDatabase, SqliteStatement } from './sqlite.js';

/** Makes `db.prepare` return one cached statement per SQL text; returns `db`. */
export function reuseStatements<T extends SqliteDatabase>(db: T): T {
  const compile = db.prepare.bind(db);
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = compile(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  db.prepare = prepare as T['prepare'];
  return db;
}
