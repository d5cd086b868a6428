/**
 * Inline documents (connector protocol 3): a small document that came on the channel right after
 * its offer is kept in memory, checked against the offer's size and sha256, until the job's
 * download step takes it. The job is claimed on the channel first and the document is handed to
 * the job (held in memory as a downloaded small one is, and on to the printer) only when the
 * cloud answers that the job is this connector's; a refused claim drops
 * the job as a refused claiming download does; any other outcome (no channel, no answer, another
 * status, a document that did not match) leaves it to the claiming download over REST, which
 * decides exactly as before. Nothing here survives a restart: a resumed job downloads.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import type { ChannelClaimResult, JobOffer } from '../../protocol/connector-channel.js';
import { ClaimRefusedError } from './claiming-download.js';

/** Most bytes of inline documents held at once; an offer beyond it is downloaded instead. */
export const INLINE_HELD_MAX_BYTES = 32 * 1024 * 1024;

/** Claims on the channel, while it carries them. */
export interface ChannelClaims {
  available(): boolean;
  claim(jobId: string, signal: AbortSignal): Promise<ChannelClaimResult>;
}

/** Fetches a job's document (the claiming download); resolves with its bytes when it kept them in memory. */
export type FetchDocument = (
  offer: JobOffer,
  target: string,
  signal: AbortSignal,
) => Promise<Buffer | undefined>;

/** Inline documents of offered jobs, by job id, until their download step takes them. */
export class InlineDocuments {
  private readonly documents = new Map<string, Buffer>();
  private held = 0;

  constructor(
    private readonly logger: Logger,
    private readonly maxBytes = INLINE_HELD_MAX_BYTES,
  ) {}

  /** Keeps `bytes` for the job when they are its document (size and sha256) and there is room. */
  keep(offer: JobOffer, bytes: Buffer): boolean {
    const { size, sha256 } = offer.document;
    const matches =
      bytes.length === size && createHash('sha256').update(bytes).digest('hex') === sha256.toLowerCase();
    if (!matches) {
      this.logger.warn(
        { job: offer.job_id, bytes: bytes.length, size },
        'inline document does not match its offer (size or sha256); it will be downloaded',
      );
      return false;
    }
    if (this.documents.has(offer.job_id) || this.held + size > this.maxBytes) return false;
    this.documents.set(offer.job_id, bytes);
    this.held += size;
    return true;
  }

  /** Takes (and forgets) the job's inline document. */
  take(jobId: string): Buffer | undefined {
    const bytes = this.documents.get(jobId);
    if (bytes) {
      this.documents.delete(jobId);
      this.held -= bytes.length;
    }
    return bytes;
  }

  /** Whether the job's inline document is held. */
  has(jobId: string): boolean {
    return this.documents.has(jobId);
  }
}

/**
 * Hands an offer to `take` (the job loop) with its inline document: the document is kept only
 * for an offer new to the agent (a repeated offer never replaces or drops one already held);
 * `take` hears whether it was kept (the job then starts `spooled`, JobLoop.offer).
 */
export function offerWithDocument(
  take: (offer: JobOffer, documentHeld: boolean) => boolean,
  inline: InlineDocuments,
  offer: JobOffer,
  bytes: Buffer | undefined,
): boolean {
  const kept = bytes !== undefined && !inline.has(offer.job_id) && inline.keep(offer, bytes);
  const fresh = take(offer, kept);
  if (kept && !fresh) inline.take(offer.job_id);
  return fresh;
}

/**
 * The download step's fetch with inline documents: a job whose inline document is held is
 * claimed on the channel; 200 returns the document (in memory, its sha256 checked on arrival),
 * 409 throws ClaimRefusedError; anything else, and a job without one, goes to `fetch`.
 */
export function inlineOrFetch(
  inline: InlineDocuments,
  claims: ChannelClaims,
  fetch: FetchDocument,
  logger: Logger,
): FetchDocument {
  return async (offer, target, signal) => {
    const bytes = inline.take(offer.job_id);
    if (bytes && claims.available()) {
      let answer: ChannelClaimResult | undefined;
      try {
        answer = await claims.claim(offer.job_id, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        logger.debug({ job: offer.job_id }, 'channel claim unanswered; downloading instead');
      }
      if (answer?.status === 409)
        throw new ClaimRefusedError(
          offer.job_id,
          `${answer.error ?? 'conflict'}: ${answer.message ?? ''}`.trim(),
        );
      if (answer?.status === 200) return bytes;
    }
    return fetch(offer, target, signal);
  };
}
