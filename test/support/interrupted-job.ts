/**
 * A job a crash left in `submitting`, for the repair's tests: its spool file of `bytes` in `dir`
 * (`%PDF-` padded), optionally the printer job Create-Job made, and what the ledger knew of the
 * document: nothing, every byte flushed to the OS, or sent (the printer answered). The offer is
 * the test offer (its size 5 bytes), so only the spool file carries `bytes`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobLedger, LedgerJob } from '../../src/store/job-ledger.js';
import { jobOffer } from './job-offers.js';

export type KnownOfDocument = 'none' | 'flushed' | 'sent';

export function leaveInterrupted(
  ledger: JobLedger,
  dir: string,
  id: string,
  options: { printerJobId?: string; document?: KnownOfDocument; bytes: number },
): LedgerJob {
  const spoolPath = join(dir, `${id}.pdf`);
  writeFileSync(spoolPath, '%PDF-'.padEnd(options.bytes, '.'));
  ledger.add(jobOffer(id));
  ledger.move(id, 'downloading');
  ledger.move(id, 'spooled', { spoolPath });
  ledger.move(id, 'submitting', { attempt: true });
  if (options.printerJobId) ledger.recordPrinterJob(id, options.printerJobId);
  if (options.document === 'flushed') ledger.markDocumentFlushed(id);
  if (options.document === 'sent') ledger.markDocumentSent(id);
  return ledger.get(id) as LedgerJob;
}
