/**
 * Private files and directories, whatever the process umask: a directory this program owns is
 * 0700 and a file 0600, so nothing it writes (secrets, user names, documents) is readable by
 * other local users. `mkdir`/`open` apply the umask to the mode they are given, which can only
 * take bits away; a chmod after creation sets exactly the mode. Directories made by someone else
 * (a package's 0750 data directory, a user's home) are left alone by `ensurePrivateDir`;
 * `makePrivateDir` is for directories this program alone owns and also tightens existing ones.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

/** Mode of every directory this program creates. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file this program creates. */
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) as 0700; an existing directory keeps its mode. */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (created !== undefined) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates `dir` as 0700, or sets an existing one to 0700 (a directory only this program uses). */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if ((statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Makes `path` an existing 0600 file: creates it empty when missing, tightens it when group or
 * others have any access (contents untouched). For files another library opens afterwards with
 * the default mode, such as a SQLite database (its -wal and -shm then take this file's mode).
 */
export function makePrivateFile(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE);
}
