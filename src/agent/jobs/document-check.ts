/**
 * The agent's check of a downloaded document before it goes to a printer (docs/print-api.md,
 * *Documents that cannot print*): its first bytes must match its content type's signature, and
 * a PDF's page ranges must select at least one of its pages. A document that fails either is
 * refused with DocumentRefusedError, whose message names the rule; the job then fails with that
 * reason instead of reaching the printer and ending as printed with no page. The signature check
 * reads 1 KiB; the page count reads the whole document once, and only for a PDF whose ticket has
 * page ranges. Nothing to clean up (every file handle is closed before it returns).
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { PermanentError } from '../../lib/errors.js';
import type { JobOffer } from '../../protocol/connector-channel.js';
import {
  documentTypeMismatch,
  pageRangesMiss,
  pagesCountable,
  SIGNATURE_BYTES,
} from '../../protocol/document-checks.js';
import { PdfPageCounter } from '../../printing/virtual/pdf-page-counter.js';

/** The document cannot print as its job says: not of its type, or no page selected. */
export class DocumentRefusedError extends PermanentError {
  constructor(reason: string) {
    super('document_refused', reason);
  }
}

/**
 * Checks the document of `offer` spooled at `path` (`held`: its bytes when kept in memory).
 * Throws DocumentRefusedError naming the broken rule; resolves when the document may print.
 */
export async function checkDocument(
  offer: JobOffer,
  path: string,
  held: Buffer | undefined,
  signal: AbortSignal,
): Promise<void> {
  const contentType = offer.document.content_type;
  const head = held ? held.subarray(0, SIGNATURE_BYTES) : await readHead(path);
  const mismatch = documentTypeMismatch(contentType, head);
  if (mismatch) throw new DocumentRefusedError(mismatch);
  const ranges = offer.ticket.pageRanges;
  if (!ranges || ranges.length === 0 || !pagesCountable(contentType)) return;
  const pages = await countPdfPages(path, held, signal);
  // A PDF whose pages the counter cannot find (0) is left to the printer to judge.
  const miss = pages > 0 ? pageRangesMiss(ranges, pages) : undefined;
  if (miss) throw new DocumentRefusedError(miss);
}

async function readHead(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(SIGNATURE_BYTES);
    const { bytesRead } = await file.read(head, 0, SIGNATURE_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

async function countPdfPages(path: string, held: Buffer | undefined, signal: AbortSignal): Promise<number> {
  const counter = new PdfPageCounter();
  if (held) {
    counter.push(held);
    return counter.finish();
  }
  for await (const chunk of createReadStream(path, { signal })) counter.push(chunk as Buffer);
  return counter.finish();
}
