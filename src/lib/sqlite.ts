/**
 * The one place that chooses the SQLite binding; everything else opens databases and names their
 * types through this module. Two lines of better-sqlite3 share one API:
 * - better-sqlite3 13 (package `better-sqlite3`) is built on Node-API 10 and ships prebuilt
 *   binaries, so it installs without a compiler; it needs Node-API 10 (Node 22.14 and later, 24)
 *   and crashes at its first statement on Node 20, which has Node-API 9.
 * - better-sqlite3 12 (package `better-sqlite3-node20`, an npm alias installed as an optional
 *   dependency) is compiled at install time; it runs on Node 20 but aborts the process on Node 24
 *   when the garbage collector frees a prepared statement.
 * The binding is chosen by the running Node's Node-API version and imported when this module
 * loads; the other line is never loaded. A binding that cannot be loaded fails the first open.
 * See docs/architecture.md, "SQLite binding".
 */
import type BetterSqlite3 from 'better-sqlite3';
import { PermanentError } from './errors.js';

/** An open database; closed by whoever opened it (`db.close()`). */
export type SqliteDatabase = BetterSqlite3.Database;
/** A prepared statement of a SqliteDatabase. */
export type SqliteStatement = BetterSqlite3.Statement;
/** Options of openSqlite (readonly, fileMustExist, timeout). */
export type SqliteOptions = BetterSqlite3.Options;

/** The packages that can provide SQLite (package.json names them). */
export type SqlitePackage = 'better-sqlite3' | 'better-sqlite3-node20';

/** The Node-API version from which better-sqlite3 13 runs. */
const NODE_API_OF_LINE_13 = 10;

/** The package to load on a Node whose `process.versions.napi` is `napi`. */
export function sqlitePackageFor(napi: string | undefined): SqlitePackage {
  return Number(napi ?? 0) >= NODE_API_OF_LINE_13 ? 'better-sqlite3' : 'better-sqlite3-node20';
}

/** The package this process uses. */
export const SQLITE_PACKAGE: SqlitePackage = sqlitePackageFor(process.versions.napi);

/** The binding could not be loaded (not installed, or its build failed at install time). */
export class SqliteBindingMissingError extends PermanentError {
  constructor(
    readonly packageName: SqlitePackage,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const fix =
      packageName === 'better-sqlite3-node20'
        ? 'it is compiled by `npm install` on Node 20: install a C++ toolchain (python3, make, g++) ' +
          'and run `npm rebuild better-sqlite3-node20`, or use Node 22.14 or newer'
        : 'run `npm install` again with this Node';
    const message = `SQLite binding ${packageName} for Node ${process.versions.node} cannot be loaded (${reason}): ${fix}`;
    super('sqlite_binding_missing', message, { cause });
  }
}

type SqliteConstructor = new (path: string | Buffer, options?: SqliteOptions) => SqliteDatabase;

type Binding = { Database: SqliteConstructor } | { error: SqliteBindingMissingError };

async function importBinding(): Promise<Binding> {
  try {
    const module = (await import(SQLITE_PACKAGE)) as { default: SqliteConstructor };
    return { Database: module.default };
  } catch (error) {
    return { error: new SqliteBindingMissingError(SQLITE_PACKAGE, error) };
  }
}

/** The chosen package, imported once when this module loads (or why it could not be). */
const binding = await importBinding();

/**
 * Opens (creating when missing, unless `fileMustExist`) the SQLite database at `path` (a file,
 * or ':memory:'), or an in-memory copy of a serialized database (`db.serialize()`'s Buffer).
 * The caller closes it with `db.close()`.
 */
export function openSqlite(path: string | Buffer, options?: SqliteOptions): SqliteDatabase {
  if ('error' in binding) throw binding.error;
  return new binding.Database(path, options);
}
