/**
 * The live side of the connector channel: the open WebSocket of each connector (a newer one
 * replaces an older one, closed with 4409), the heartbeat (ping every `heartbeatS`, a socket
 * silent for two intervals is terminated), and the long polls waiting for work. JobService tells
 * it about new and cancelled jobs. `stop()` ends heartbeats, closes sockets and releases waiters.
 * Heartbeat liveness is measured in wall-clock time because the timers that drive it are real;
 * the ping's `t` comes from the injected Clock. On a channel of protocol 3 an offer of a document
 * of at most `inlineDocumentBytes` carries it inline: a binary frame right after the offer.
 */
import type { WebSocket } from 'ws';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import {
  CHANNEL_CLOSE,
  CHANNEL_EVENTS_PROTOCOL,
  CONNECTOR_PROTOCOL_VERSION,
  INLINE_DOCUMENT_MAX_BYTES,
  type JobOffer,
  type ServerMessage,
} from '../../protocol/connector-channel.js';

/** The channel's protocol settings (EmulatorOptions.connectorChannel). */
export interface ChannelSettings {
  /** Highest protocol version the emulator speaks (default CONNECTOR_PROTOCOL_VERSION; tests set 2 to act as an older cloud). */
  maxProtocol?: number;
  /** Largest document sent inline with its offer on a protocol-3 channel (default 256 KiB; 0: none). */
  inlineDocumentBytes?: number;
}

/** The stored bytes of a job's document, or undefined when they cannot be read (deleted, missing). */
export type DocumentSource = (jobId: string) => Buffer | undefined;

/** What JobService tells the channel. */
export interface JobNotifier {
  /** A job for one of the connector's printers is waiting. */
  jobAvailable(connectorId: string, offer: JobOffer): void;
  /** A job the connector may hold was cancelled in the cloud. */
  jobCancelled(connectorId: string, jobId: string): void;
}

interface Channel {
  socket: WebSocket;
  timer: NodeJS.Timeout;
  lastPong: number;
  /** The protocol version negotiated with this channel's agent. */
  protocol: number;
}

/** Routes messages to connected connectors and wakes long polls. */
export class ConnectorHub implements JobNotifier {
  private readonly channels = new Map<string, Channel>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private documents: DocumentSource = () => undefined;
  /** Highest protocol version the emulator speaks. */
  readonly maxProtocol: number;
  /** Largest document sent inline with its offer on a protocol-3 channel. */
  readonly inlineDocumentBytes: number;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Seconds between pings. */
    readonly heartbeatS = 25,
    settings: ChannelSettings = {},
  ) {
    this.maxProtocol = settings.maxProtocol ?? CONNECTOR_PROTOCOL_VERSION;
    this.inlineDocumentBytes = settings.inlineDocumentBytes ?? INLINE_DOCUMENT_MAX_BYTES;
  }

  /** Installs where inline documents are read from (the job service; app.ts wires it). */
  setDocumentSource(source: DocumentSource): void {
    this.documents = source;
  }

  /**
   * Takes over an open socket of a connector speaking `protocol`; an older socket of the same
   * connector is closed.
   */
  attach(connectorId: string, socket: WebSocket, protocol = 2): void {
    const previous = this.channels.get(connectorId);
    if (previous)
      this.closeChannel(connectorId, previous, CHANNEL_CLOSE.replaced, 'replaced by a newer channel');
    const channel: Channel = {
      socket,
      lastPong: Date.now(),
      protocol,
      timer: setInterval(() => this.beat(connectorId, channel), this.heartbeatS * 1000),
    };
    channel.timer.unref();
    this.channels.set(connectorId, channel);
    socket.on('close', () => this.detach(connectorId, socket));
  }

  /** Forgets the socket when it is still the connector's current one. */
  detach(connectorId: string, socket: WebSocket): void {
    const channel = this.channels.get(connectorId);
    if (channel?.socket !== socket) return;
    clearInterval(channel.timer);
    this.channels.delete(connectorId);
  }

  /** Records a pong (any message counts as a sign of life). */
  alive(connectorId: string): void {
    const channel = this.channels.get(connectorId);
    if (channel) channel.lastPong = Date.now();
  }

  /** True while the connector has an open channel. */
  isConnected(connectorId: string): boolean {
    return this.channels.has(connectorId);
  }

  /** Closes the connector's channel with `code` (for example 4404 once it is deleted); false when it has none. */
  disconnect(connectorId: string, code: number, reason: string): boolean {
    const channel = this.channels.get(connectorId);
    if (!channel) return false;
    this.closeChannel(connectorId, channel, code, reason);
    return true;
  }

  /** Sends a message down the connector's channel; false when it has none. */
  send(connectorId: string, message: ServerMessage): boolean {
    const channel = this.channels.get(connectorId);
    if (!channel || channel.socket.readyState !== channel.socket.OPEN) return false;
    channel.socket.send(JSON.stringify(message));
    return true;
  }

  /**
   * Sends an offer down the connector's channel; on protocol 3, a document of at most
   * `inlineDocumentBytes` that can be read follows inline as one binary frame. False without a channel.
   */
  offer(connectorId: string, offer: JobOffer): boolean {
    const channel = this.channels.get(connectorId);
    if (!channel || channel.socket.readyState !== channel.socket.OPEN) return false;
    const small =
      channel.protocol >= CHANNEL_EVENTS_PROTOCOL && offer.document.size <= this.inlineDocumentBytes;
    const bytes = small ? this.documents(offer.job_id) : undefined;
    if (bytes?.length !== offer.document.size) {
      channel.socket.send(JSON.stringify({ type: 'job.offer', job: offer } satisfies ServerMessage));
      return true;
    }
    channel.socket.send(
      JSON.stringify({ type: 'job.offer', job: offer, inline: true } satisfies ServerMessage),
    );
    channel.socket.send(bytes, { binary: true });
    return true;
  }

  jobAvailable(connectorId: string, offer: JobOffer): void {
    this.offer(connectorId, offer);
    this.wake(connectorId);
  }

  jobCancelled(connectorId: string, jobId: string): void {
    this.send(connectorId, { type: 'job.cancel', job_id: jobId });
  }

  /** Resolves when work arrives for the connector, after `ms`, or when `signal` aborts. */
  waitForWork(connectorId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(connectorId) ?? new Set<() => void>();
      this.waiters.set(connectorId, set);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(connectorId) === set) this.waiters.delete(connectorId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** Ends heartbeats, closes every channel and releases every waiting poll. */
  stop(): void {
    for (const [id, channel] of this.channels) this.closeChannel(id, channel, 1001, 'emulator stopping');
    for (const set of this.waiters.values()) for (const done of [...set]) done();
  }

  private wake(connectorId: string): void {
    for (const done of [...(this.waiters.get(connectorId) ?? [])]) done();
  }

  private beat(connectorId: string, channel: Channel): void {
    if (Date.now() - channel.lastPong > 2 * this.heartbeatS * 1000) {
      this.logger.warn({ connector: connectorId }, 'channel silent for two heartbeats: terminating');
      clearInterval(channel.timer);
      channel.socket.terminate();
      return;
    }
    this.send(connectorId, { type: 'ping', t: this.clock.now() });
  }

  private closeChannel(connectorId: string, channel: Channel, code: number, reason: string): void {
    clearInterval(channel.timer);
    this.channels.delete(connectorId);
    channel.socket.close(code, reason);
  }
}
