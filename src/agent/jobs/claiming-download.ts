/**
 * The document download that also claims the job (connector protocol 2): the agent sends no
 * claim request of its own. A cloud of protocol 1 answers the claiming download with 409 until
 * the job is claimed; then the job is claimed the old way and downloaded again. A 409 on that
 * claim means another connector holds the job or it already ended: ClaimRefusedError.
 */
import { type ChannelClient, isClaimConflict } from '../../client/channel-client.js';
import { PermanentError } from '../../lib/errors.js';
import type { JobOffer } from '../../protocol/connector-channel.js';

/** The cloud refused this connector the job: another connector holds it, or it already ended. */
export class ClaimRefusedError extends PermanentError {
  constructor(jobId: string, reason: string) {
    super('claim_refused', `job ${jobId} is not this connector's to print: ${reason}`);
  }
}

/**
 * Downloads `offer`'s document to `target`, claiming the job on the way. With `keepUpTo`, a
 * document of at most that many bytes is also returned in memory (ChannelClient.download).
 */
export async function claimingDownload(
  channel: Pick<ChannelClient, 'download' | 'claim'>,
  offer: JobOffer,
  target: string,
  signal: AbortSignal,
  keepUpTo?: number,
): Promise<Buffer | undefined> {
  const keep = keepUpTo === undefined ? {} : { keepUpTo };
  try {
    return await channel.download(offer.job_id, offer.document, target, signal, { claim: true, ...keep });
  } catch (error) {
    if (!isClaimConflict(error)) throw error;
  }
  try {
    await channel.claim(offer.job_id, signal);
  } catch (error) {
    if (isClaimConflict(error)) throw new ClaimRefusedError(offer.job_id, (error as Error).message);
    throw error;
  }
  return channel.download(offer.job_id, offer.document, target, signal, keep);
}
