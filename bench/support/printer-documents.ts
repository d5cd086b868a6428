/**
 * What a bench line really printed: ippeveprinter with `-k` keeps every document it got as
 * `<its job id>-<job name>.<ext>` in its spool directory (beside other files of the same job, such
 * as its output), so the whole documents of a line's jobs can be counted there.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The jobs named `<prefix>-<job id>` whose document of `size` bytes the printer kept; throws
 * unless there are `expected` of them.
 */
export function checkDocumentsAtPrinter(
  spoolDir: string,
  prefix: string,
  size: number,
  expected: number,
): void {
  const marker = `-${prefix}-`;
  const jobs = new Set(
    readdirSync(spoolDir)
      .filter((file) => file.includes(marker) && statSync(join(spoolDir, file)).size === size)
      .map((file) => file.slice(file.indexOf(marker)).replace(/\.[^.]*$/, '')),
  );
  if (jobs.size !== expected)
    throw new Error(`${prefix}: the printer holds ${jobs.size} whole documents of its jobs, not ${expected}`);
}
