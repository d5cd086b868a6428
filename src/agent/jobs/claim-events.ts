/**
 * The channel claim that carries the job's first events (connector protocol 4): the job's pending
 * events (those of its offer's commit: `received`, `downloading`) go in the claim's frame instead
 * of a batch of their own. The outbox sender hands them over and keeps every batch off the job
 * until the claim's answer is in; the events leave the outbox only on their results in that
 * answer (one commit), and on no answer (or a refused claim, or a cloud that did not apply them)
 * they stay and go in the sender's next batch, idempotent by event_id. Holds nothing itself.
 */
import type { ChannelClaimResult, JobEvent, JobEventItemResult } from '../../protocol/connector-channel.js';
import type { PendingEvent } from '../../store/outbox.js';

/** The outbox sender's side of a claim with events (OutboxSender.takeForClaim / settleClaim). */
export interface ClaimEventSource {
  takeForClaim(jobId: string): PendingEvent[] | undefined;
  settleClaim(jobId: string, pending: PendingEvent[], results: JobEventItemResult[] | undefined): void;
}

/** A channel claim, with the job's events when given (ChannelRequests.claim). */
export type ChannelClaim = (
  jobId: string,
  signal: AbortSignal,
  events?: JobEvent[],
) => Promise<ChannelClaimResult>;

/**
 * A channel claim that carries the job's pending events while `carries()` says the channel
 * speaks protocol 4 (else, and for a job with none to send, a plain claim). Resolves and rejects
 * as `claim` does; the events are settled with the sender before it returns.
 */
export function claimWithEvents(
  source: ClaimEventSource,
  carries: () => boolean,
  claim: ChannelClaim,
): (jobId: string, signal: AbortSignal) => Promise<ChannelClaimResult> {
  return async (jobId, signal) => {
    const pending = carries() ? source.takeForClaim(jobId) : undefined;
    if (!pending) return claim(jobId, signal);
    let answer: ChannelClaimResult;
    try {
      answer = await claim(
        jobId,
        signal,
        pending.map((item) => item.event),
      );
    } catch (error) {
      source.settleClaim(jobId, pending, undefined);
      throw error;
    }
    source.settleClaim(jobId, pending, answer.status === 200 ? answer.events : undefined);
    return answer;
  };
}
