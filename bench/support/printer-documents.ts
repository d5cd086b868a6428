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

/**
 * The document file of the printer's newest job: the highest job id among the kept files, its
 * `.prn` (the printer's output of processing it, written after the document and often with the
 * same mtime) left out. Chosen by job id, not mtime: the file system's coarse timestamps tie the
 * document and its output, and the newest by mtime was then the empty output half of the time.
 */
export function newestJobDocument(spoolDir: string): string {
  let newest: { job: number; file: string } | undefined;
  for (const file of readdirSync(spoolDir)) {
    const match = /^(\d+)-/.exec(file);
    if (!match || file.endsWith('.prn')) continue;
    const job = Number(match[1]);
    if (newest && newest.job === job)
      throw new Error(`the printer kept two documents for its job ${job}: ${newest.file}, ${file}`);
    if (!newest || job > newest.job) newest = { job, file };
  }
  if (!newest) throw new Error(`the printer kept no document in ${spoolDir}`);
  return newest.file;
}
