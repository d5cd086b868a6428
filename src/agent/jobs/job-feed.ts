/**
 * Where offers come from: the channel WebSocket (with the REST long poll while it is down), or
 * the long poll only (config cloud.channel = poll). Offers (with their inline document, protocol
 * 3) and cancels go to the handlers. While a channel of protocol 3 is up, claims and event
 * batches can go on it (channelRequests). start() begins listening; stop() closes the socket and
 * ends the poll loop.
 */
import { sleep } from '../../lib/abort.js';
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { ChannelClient } from '../../client/channel-client.js';
import { ChannelRequests } from '../../client/channel-requests.js';
import { ChannelSocket } from '../../client/channel-socket.js';
import type { TokenSource } from '../../client/http-base.js';
import {
  CHANNEL_EVENTS_PROTOCOL,
  CLAIM_EVENTS_PROTOCOL,
  type JobOffer,
  type ServerMessage,
} from '../../protocol/connector-channel.js';

/** Pause after a poll answer that held only jobs the agent already has. */
const REPEATED_OFFER_PAUSE_MS = 20;

/** What a JobFeed needs; the handlers receive offers and cancels. */
export interface JobFeedDeps {
  mode: 'websocket' | 'poll';
  baseUrl: string;
  channel: ChannelClient;
  tokens: TokenSource;
  pollWaitS: number;
  backoff: BackoffPolicy;
  logger: Logger;
  /** Takes an offer (and its inline document, when it came with one); returns whether it was new to the agent. */
  onOffer: (offer: JobOffer, inline?: Buffer) => boolean;
  /** Called after a poll answer's offers were handed over (the agent hurries their claims). */
  onPolledOffers?: () => void;
  onCancel: (jobId: string) => void;
  onUnknownConnector?: () => void;
  /** PEM of a CA to trust for the WebSocket besides the system roots (cloud.ca_file). */
  ca?: string;
  /** The highest channel protocol to ask for (default CONNECTOR_PROTOCOL_VERSION). */
  protocol?: number;
}

/** Offer source combining WebSocket and poll. */
export class JobFeed {
  private socket: ChannelSocket | undefined;
  private controller = new AbortController();
  private pollLoop: Promise<void> | undefined;
  /** Claims and event batches on the channel (protocol 3); they fail at once while it is down. */
  readonly channelRequests = new ChannelRequests({ send: (message) => this.socket?.send(message) ?? false });

  constructor(private readonly deps: JobFeedDeps) {}

  /** True while the channel is up and speaks protocol 3: claims and events may go on it. */
  get channelCarriesRequests(): boolean {
    return (this.socket?.isUp ?? false) && (this.socket?.protocol ?? 1) >= CHANNEL_EVENTS_PROTOCOL;
  }

  /** True while the channel is up and speaks protocol 4: a claim may carry the job's events. */
  get channelCarriesClaimEvents(): boolean {
    return (this.socket?.isUp ?? false) && (this.socket?.protocol ?? 1) >= CLAIM_EVENTS_PROTOCOL;
  }

  /** Starts the socket (websocket mode) and the poll loop. */
  start(): void {
    this.controller = new AbortController();
    if (this.deps.mode === 'websocket') {
      this.socket = new ChannelSocket({
        baseUrl: this.deps.baseUrl,
        tokens: this.deps.tokens,
        logger: this.deps.logger.child({ connector: 'channel' }),
        backoff: this.deps.backoff,
        onMessage: (m, inline) => this.handle(m, inline),
        onState: (up) => {
          if (!up) this.channelRequests.closed();
        },
        onUnknownConnector: this.deps.onUnknownConnector,
        connectorId: () => this.deps.channel.registeredConnectorId,
        ...(this.deps.ca ? { ca: this.deps.ca } : {}),
        ...(this.deps.protocol === undefined ? {} : { protocol: this.deps.protocol }),
      });
      this.socket.start();
    }
    this.pollLoop = this.poll(this.controller.signal);
  }

  /** Whether the WebSocket is connected. */
  get connected(): boolean {
    return this.socket?.isUp ?? false;
  }

  /** Stops listening. */
  async stop(): Promise<void> {
    this.controller.abort(new Error('stopping'));
    await this.socket?.stop();
    this.socket = undefined;
    this.channelRequests.closed();
    await this.pollLoop;
  }

  private handle(message: ServerMessage, inline?: Buffer): void {
    if (message.type === 'job.offer') this.deps.onOffer(message.job, inline);
    else if (message.type === 'job.cancel') this.deps.onCancel(message.job_id);
    else if (message.type === 'claim_result' || message.type === 'events_result')
      this.channelRequests.answer(message);
  }

  private async poll(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      if (this.socket?.isUp) {
        await sleep(500, signal).catch(() => {});
        continue;
      }
      try {
        const offers = await this.deps.channel.poll(this.deps.pollWaitS, signal);
        failures = 0;
        let fresh = 0;
        for (const offer of offers) if (this.deps.onOffer(offer)) fresh++;
        if (offers.length > 0) this.deps.onPolledOffers?.();
        // The cloud answers at once while a job it offered is unclaimed; the agent's `received`
        // event (the claim) is on its way. A short pause keeps that from becoming a tight loop.
        if (offers.length > 0 && fresh === 0) await sleep(REPEATED_OFFER_PAUSE_MS, signal).catch(() => {});
      } catch (error) {
        if (signal.aborted) return;
        this.deps.logger.warn({ error: errorMessage(error) }, 'job poll failed');
        await sleep(backoffDelay(this.deps.backoff, failures++), signal).catch(() => {});
      }
    }
  }
}
