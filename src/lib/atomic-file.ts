/**
 * Atomic file replacement: readers see the old content or the new, never a torn write, and a
 * crash leaves at most a `<file>.<pid>.tmp` behind (token-store removes those of dead processes).
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `data` to `path` atomically: temp file, fsync, rename, directory fsync. */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // some platforms cannot fsync a directory; the rename is still atomic
  }
}
