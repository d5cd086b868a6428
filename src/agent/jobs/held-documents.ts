/**
 * Small documents the agent keeps in memory after their download, with no spool file: the
 * submission sends these bytes, and a restart (which loses them) fetches the document again from
 * the cloud. Bounded in all, so many waiting jobs never hold much memory; a document that does not
 * fit is written to its spool file and sent from it. Forgotten once the printer accepted the job.
 */

/**
 * A document of at most this many bytes is kept: a one-page PDF is a few KB to some 100 KB and
 * most office documents of a few pages stay below it, while a larger one's file read costs little
 * beside its transfer.
 */
export const SMALL_DOCUMENT_BYTES = 256 * 1024;

/** The most all kept documents hold together: 4 MiB (16 documents of the largest small size). */
export const HELD_DOCUMENTS_BYTES = 4 * 1024 * 1024;

/** The bytes of small documents by job id. */
export class HeldDocuments {
  private readonly documents = new Map<string, Buffer>();
  private total = 0;

  constructor(private readonly limit = HELD_DOCUMENTS_BYTES) {}

  /** Keeps a job's document when it is small and there is room; returns whether it was kept. */
  keep(jobId: string, bytes: Buffer): boolean {
    this.forget(jobId);
    if (bytes.length > SMALL_DOCUMENT_BYTES || this.total + bytes.length > this.limit) return false;
    this.documents.set(jobId, bytes);
    this.total += bytes.length;
    return true;
  }

  /** The kept bytes of a job's document, or undefined. */
  get(jobId: string): Buffer | undefined {
    return this.documents.get(jobId);
  }

  /** Drops a job's document (submitted, ended, or downloaded again). */
  forget(jobId: string): void {
    const bytes = this.documents.get(jobId);
    if (!bytes) return;
    this.documents.delete(jobId);
    this.total -= bytes.length;
  }

  /** Bytes held now. */
  held(): number {
    return this.total;
  }
}
