/**
 * Where the emulator keeps its secrets on disk, and with which modes: the data directory 0700,
 * the database file (and SQLite's -wal/-shm beside it, which take its mode) 0600, secret files
 * (signing keys, the upload-URL key) 0600. Created that way; at start-up every one of them is
 * checked and a looser mode is logged as a warning naming the path (never changed behind the
 * owner's back). Only fs/promises; nothing to clean up.
 */
import { chmod, mkdir, open, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../log/logger.js';

/** Creates `dir` with mode 0700 when missing (parents too). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir applies the umask; a directory made here gets exactly 0700.
  if (created !== undefined) await chmod(dir, 0o700);
}

/** Creates the database file with mode 0600 when missing (':memory:' is left alone). */
export async function ensurePrivateDatabaseFile(path: string): Promise<void> {
  if (path === ':memory:') return;
  await ensurePrivateDir(dirname(path));
  const handle = await open(path, 'a', 0o600);
  await handle.close();
}

/** Writes a secret file with mode 0600 in a 0700 directory; refuses to overwrite. */
export async function writeSecretFile(path: string, content: string): Promise<void> {
  await ensurePrivateDir(dirname(path));
  await writeFile(path, content, { mode: 0o600, flag: 'wx' });
}

/**
 * Logs a warning for each existing path whose mode lets group or others in; returns those
 * paths. Missing paths are skipped.
 */
export async function warnOnLooseModes(paths: string[], logger: Logger): Promise<string[]> {
  const loose: string[] = [];
  for (const path of paths) {
    const mode = await stat(path).then(
      (s) => s.mode & 0o777,
      () => undefined,
    );
    if (mode === undefined || (mode & 0o077) === 0) continue;
    loose.push(path);
    logger.warn(
      { path, mode: mode.toString(8) },
      `${path} is readable by other users (mode ${mode.toString(8)}); it holds secrets: chmod go-rwx ${path}`,
    );
  }
  return loose;
}
