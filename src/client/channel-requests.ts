/**
 * The requests an agent makes on its channel WebSocket (connector protocol 3): claims and event
 * batches, each sent with an id of its own and answered by the cloud's `claim_result` /
 * `events_result` with the same id. A request whose answer does not come (the channel closed, the
 * timeout passed, the caller aborted) rejects with a RetryableError: its outcome is unknown, and
 * the caller sends it again (claims are idempotent for their holder, events by event_id). The
 * owner feeds the cloud's answers to answer() and tells closed() when the socket goes down.
 */
import { RetryableError } from '../lib/errors.js';
import type {
  AgentMessage,
  ChannelClaimResult,
  JobEvent,
  JobEventBatchItem,
  JobEventItemResult,
  ServerMessage,
} from '../protocol/connector-channel.js';
import { checkBatchResults } from './channel-client.js';

/** Sends a message up the channel; false when it is not open. */
export interface ChannelTransport {
  send(message: AgentMessage): boolean;
}

/** How long a request waits for its answer before its outcome counts as unknown. */
export const CHANNEL_ANSWER_TIMEOUT_MS = 15_000;

interface Pending {
  resolve: (message: ServerMessage) => void;
  reject: (error: unknown) => void;
}

/** Claims and event batches over one agent's channel (across its reconnects). */
export class ChannelRequests {
  private readonly pending = new Map<string, Pending>();
  private counter = 0;

  constructor(
    private readonly transport: ChannelTransport,
    private readonly timeoutMs = CHANNEL_ANSWER_TIMEOUT_MS,
  ) {}

  /**
   * Sends a batch of events; resolves with one result per event in order (checked against the
   * batch), rejects when the cloud refused the whole batch or no answer came.
   */
  async postEvents(items: JobEventBatchItem[], signal?: AbortSignal): Promise<JobEventItemResult[]> {
    const batchId = `b${++this.counter}`;
    const answer = await this.request(
      batchId,
      { type: 'events', batch_id: batchId, events: items },
      'events',
      signal,
    );
    if (answer.type !== 'events_result')
      throw new RetryableError('bad_answer', 'channel events: wrong answer');
    if (answer.error) {
      const { status, error, message } = answer.error;
      throw new RetryableError('channel_refused', `channel events: ${status} ${error}: ${message}`);
    }
    return checkBatchResults(items, answer, 'channel events');
  }

  /**
   * Claims a job; resolves with the cloud's answer (status 200: the job is this connector's).
   * With `events` (protocol 4: the job's own, 1 to MAX_EVENT_BATCH) the claim carries them; an
   * answer of 200 with `events` results has one per event in order (checked), and one without
   * them means none was applied.
   */
  async claim(jobId: string, signal?: AbortSignal, events?: JobEvent[]): Promise<ChannelClaimResult> {
    const claimId = `c${++this.counter}`;
    const carried = events && events.length > 0 ? { events } : {};
    const answer = await this.request(
      claimId,
      { type: 'claim', claim_id: claimId, job_id: jobId, ...carried },
      'claim',
      signal,
    );
    if (answer.type !== 'claim_result' || answer.job_id !== jobId)
      throw new RetryableError('bad_answer', `channel claim of job ${jobId}: wrong answer`);
    if (answer.events !== undefined && events) {
      const items = events.map((event) => ({ job_id: jobId, event }));
      checkBatchResults(items, { results: answer.events }, `channel claim of job ${jobId}`);
    }
    return answer;
  }

  /** Takes an answer of the cloud; false when it answers nothing pending (late or unknown). */
  answer(message: ServerMessage): boolean {
    const id =
      message.type === 'events_result'
        ? message.batch_id
        : message.type === 'claim_result'
          ? message.claim_id
          : undefined;
    const pending = id === undefined ? undefined : this.pending.get(id);
    if (!pending || id === undefined) return false;
    this.pending.delete(id);
    pending.resolve(message);
    return true;
  }

  /** The channel went down: every request waiting for its answer fails (outcome unknown). */
  closed(): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(unknownOutcome('the channel closed before the answer'));
  }

  /** Requests waiting for their answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  private request(
    id: string,
    message: AgentMessage,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<ServerMessage> {
    signal?.throwIfAborted();
    return new Promise<ServerMessage>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        this.pending.delete(id);
      };
      const aborted = () => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        done();
        reject(unknownOutcome(`no answer to channel ${what} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (answer) => {
          done();
          resolve(answer);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      signal?.addEventListener('abort', aborted, { once: true });
      if (!this.transport.send(message)) {
        done();
        reject(unknownOutcome(`channel ${what}: the channel is not open`));
      }
    });
  }
}

function unknownOutcome(message: string): RetryableError {
  return new RetryableError('network', message);
}
