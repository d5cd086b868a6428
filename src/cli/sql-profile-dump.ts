/**
 * The agent's statement profile on demand (PRINTRELAY_SQL_PROFILE=<file>, a measuring aid for
 * bench:floor, docs/performance.md): each SIGUSR2 writes the profile's cumulative figures and the
 * size of the database's `-wal` file to `<file>` (0600, replaced whole), with a count of the
 * snapshots taken so a reader can wait for the next one.
 */
import { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import type { ProfileSnapshot, StatementProfile } from '../lib/sqlite-profile.js';

/** What the file holds after the `taken`th SIGUSR2. */
export interface ProfileDump extends ProfileSnapshot {
  taken: number;
  /** The `-wal` file's size in bytes (0 when absent). */
  walBytes: number;
}

/** Writes a dump to `file` on every SIGUSR2 of `target`; returns the function that stops it. */
export function dumpProfileOnSignal(
  file: string,
  profile: StatementProfile,
  walFile: string,
  target: NodeJS.EventEmitter = process,
): () => void {
  let taken = 0;
  const handler = () => {
    taken++;
    const dump: ProfileDump = {
      taken,
      walBytes: existsSync(walFile) ? statSync(walFile).size : 0,
      ...profile.snapshot(),
    };
    const next = `${file}.next`;
    writeFileSync(next, JSON.stringify(dump), { mode: 0o600 });
    renameSync(next, file);
  };
  target.on('SIGUSR2', handler);
  return () => target.off('SIGUSR2', handler);
}
