/**
 * The spool folder's clean-up at start: a job's spool file is removed once its final state is
 * recorded, so a crash between the two leaves the file of an ended job behind, and nothing else
 * would ever remove it. Before unfinished jobs resume, every file in the folder that no unfinished
 * job may still read (its recorded spool file, or the name its download writes to) is removed.
 * Only regular files directly in the folder are touched.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { LedgerJob } from '../../store/job-ledger.js';
import { spoolTarget } from './download-step.js';

/** What the sweep removed and what it could not. */
export interface SpoolSweep {
  removed: string[];
  failed: string[];
}

/**
 * Removes the files of `spoolDir` that none of `unfinished` may read; logs what it removed and
 * each file it could not remove (`remove` is the file removal; tests give one that fails).
 */
export function sweepSpool(
  spoolDir: string,
  unfinished: readonly LedgerJob[],
  logger: Logger,
  remove: (path: string) => void = rmSync,
): SpoolSweep {
  const kept = new Set<string>();
  for (const job of unfinished) {
    kept.add(basename(spoolTarget(spoolDir, job)));
    if (job.spoolPath) kept.add(basename(job.spoolPath));
  }
  const sweep: SpoolSweep = { removed: [], failed: [] };
  for (const entry of readdirSync(spoolDir, { withFileTypes: true })) {
    if (!entry.isFile() || kept.has(entry.name)) continue;
    try {
      remove(join(spoolDir, entry.name));
      sweep.removed.push(entry.name);
    } catch (error) {
      sweep.failed.push(entry.name);
      logger.warn({ file: entry.name, error: errorMessage(error) }, 'could not remove a stale spool file');
    }
  }
  if (sweep.removed.length > 0)
    logger.info({ files: sweep.removed.length }, 'removed spool files of jobs that had ended before a crash');
  return sweep;
}
