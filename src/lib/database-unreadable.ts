/**
 * One clear error for a SQLite file that cannot be used (not a database, corrupt, unreadable),
 * naming the file and the way out, and the exit code the CLI gives it: a service manager told
 * not to restart on that code (RestartPreventExitStatus) stops instead of looping on a file
 * that will not get better by itself.
 */
import { PermanentError } from './errors.js';

/** Exit code of a command stopped by an unusable database file (sysexits EX_CONFIG). */
export const EXIT_DATABASE_UNREADABLE = 78;

/** SQLite result codes that mean the file itself is the problem. */
const FILE_PROBLEMS = new Set([
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
]);

/** The database file at `path` cannot be used; the message says how to recover. */
export class DatabaseUnreadableError extends PermanentError {
  constructor(
    readonly path: string,
    what: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      'database_unreadable',
      `${what} database ${path} cannot be used (${reason}): stop the service, move the file aside ` +
        `(mv ${path} ${path}.broken) and start again; see docs/operations.md, "Recovery"`,
      { cause },
    );
  }
}

/**
 * Runs `open` (which opens and migrates the database); a SQLite error about the file itself
 * becomes a DatabaseUnreadableError naming `path`. Other errors pass through unchanged.
 */
export function openingDatabase<T>(path: string, what: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && [...FILE_PROBLEMS].some((c) => code.startsWith(c)))
      throw new DatabaseUnreadableError(path, what, error);
    throw error;
  }
}
