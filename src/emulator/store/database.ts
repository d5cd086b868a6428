/**
 * Opening the emulator's SQLite database (a file in WAL mode, or ':memory:') and the migration
 * runner. The caller of `openEmulatorDatabase` owns the handle and closes it with `db.close()`.
 */
import { openingDatabase } from '../../lib/database-unreadable.js';
import { openSqlite, type SqliteDatabase } from '../../lib/sqlite.js';
import { reuseStatements } from '../../lib/sqlite-statements.js';
import { MIGRATIONS, type Migration } from './migrations.js';

/** The handle of the emulator database (lib/sqlite.ts). */
export type EmulatorDatabase = SqliteDatabase;

/** Opens (creating when missing) the database at `path` and applies pending migrations. */
export function openEmulatorDatabase(path: string): EmulatorDatabase {
  return openingDatabase(path, 'emulator', () => {
    const db = reuseStatements(openSqlite(path));
    try {
      if (path !== ':memory:') db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      runMigrations(db, MIGRATIONS);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  });
}

/** The highest migration version applied to `db` (0 for an empty database). */
export function schemaVersion(db: EmulatorDatabase): number {
  ensureMigrationTable(db);
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Applies every migration whose version is above the database's, in order, each in its own
 * transaction. Returns the versions applied. Throws when versions are not strictly increasing.
 */
export function runMigrations(db: EmulatorDatabase, migrations: readonly Migration[]): number[] {
  checkOrder(migrations);
  const current = schemaVersion(db);
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    })();
    applied.push(migration.version);
  }
  return applied;
}

function ensureMigrationTable(db: EmulatorDatabase): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    const previous = migrations[i - 1];
    if (previous && m.version <= previous.version) {
      throw new Error(`migration ${m.version} (${m.name}): versions must increase strictly`);
    }
  });
}
