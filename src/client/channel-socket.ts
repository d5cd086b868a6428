/**
 * The channel WebSocket (GET /connector/v1/channel?protocol=3): connects with the bearer token,
 * answers pings, hands the cloud's messages to the caller, and reconnects with backoff when it
 * drops. On protocol 3 an offer marked `inline` is handed over together with the binary frame
 * that follows it (any other frame in between: without it, the agent downloads the document).
 * `onState` tells the caller when it is up or down (the job feed polls while it is down).
 * start() opens it; stop() closes it and stops reconnecting.
 */
import WebSocket from 'ws';
import { type BackoffPolicy, backoffDelay } from '../lib/backoff.js';
import { errorMessage } from '../lib/errors.js';
import type { Logger } from '../log/logger.js';
import {
  type AgentMessage,
  CHANNEL_CLOSE,
  CHANNEL_PATHS,
  CHANNEL_PROTOCOL_PARAM,
  CONNECTOR_PROTOCOL_VERSION,
  type JobOffer,
  type ServerMessage,
} from '../protocol/connector-channel.js';
import { trustedCas, untrustedCertificateError } from './cloud-trust.js';
import type { TokenSource } from './http-base.js';

/** What a ChannelSocket needs; the callbacks run on the socket's events. */
export interface ChannelSocketOptions {
  baseUrl: string;
  tokens: TokenSource;
  logger: Logger;
  backoff: BackoffPolicy;
  /** A message of the cloud; `inline` is the document that came with an inline offer. */
  onMessage: (message: ServerMessage, inline?: Buffer) => void;
  onState?: (up: boolean) => void;
  /** The cloud deleted this connector (close 4404). */
  onUnknownConnector?: () => void;
  /** PEM of a CA to trust besides the system roots (cloud.ca_file). */
  ca?: string;
  /**
   * The connector the socket is for, read at every (re)connect and sent as X-Host-Id; without
   * it the cloud picks the most recently seen connector of the token's user and client.
   */
  connectorId?: () => string | undefined;
  /** The highest protocol version to ask for (default CONNECTOR_PROTOCOL_VERSION). */
  protocol?: number;
}

/** One reconnecting WebSocket. */
export class ChannelSocket {
  private socket: WebSocket | undefined;
  private stopped = true;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private up = false;
  private version = 1;
  /** An inline offer waiting for its document frame. */
  private awaitingDocument: Extract<ServerMessage, { type: 'job.offer' }> | undefined;

  constructor(private readonly options: ChannelSocketOptions) {}

  /** Whether the socket is open and greeted. */
  get isUp(): boolean {
    return this.up;
  }

  /** The protocol version the open channel speaks (its hello's), 1 before any hello. */
  get protocol(): number {
    return this.version;
  }

  /** Starts connecting (returns at once; connection state arrives through onState). */
  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** Closes the socket and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = undefined;
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.close(1000, 'agent stopping');
      const timeout = setTimeout(() => socket.terminate(), 2000);
      await closed;
      clearTimeout(timeout);
    }
    this.setUp(false);
  }

  /** Sends a message up, when connected; returns whether it went. */
  send(message: AgentMessage): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let token: string;
    try {
      token = await this.options.tokens.token();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'channel: no token, retrying');
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) return;
    const url = new URL(CHANNEL_PATHS.channel, this.options.baseUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set(CHANNEL_PROTOCOL_PARAM, String(this.options.protocol ?? CONNECTOR_PROTOCOL_VERSION));
    const ca = trustedCas(this.options.ca);
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${token}`, ...hostHeader(this.options.connectorId?.()) },
      ...(ca ? { ca } : {}),
    });
    this.socket = socket;
    this.awaitingDocument = undefined;
    socket.on('message', (data, isBinary) => {
      if (isBinary) this.document(asBuffer(data));
      else this.handle(data.toString());
    });
    socket.on('error', (error) => this.socketError(url.href, error));
    socket.on('close', (code) => this.closed(socket, code, token));
  }

  /** An untrusted certificate is a warning (the REST poll fails the same way); the rest is debug. */
  private socketError(url: string, error: Error): void {
    const untrusted = untrustedCertificateError(url, error);
    if (untrusted)
      this.options.logger.warn({ error: untrusted.message }, 'channel: TLS certificate not trusted');
    else this.options.logger.debug({ error: errorMessage(error) }, 'channel error');
  }

  /** The binary frame of an inline offer: both go to the caller; a stray frame is dropped. */
  private document(bytes: Buffer): void {
    const offer = this.awaitingDocument;
    this.awaitingDocument = undefined;
    if (offer) this.options.onMessage(offer, bytes);
    else
      this.options.logger.warn({ bytes: bytes.length }, 'channel: ignoring a binary frame without an offer');
  }

  private handle(text: string): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(text) as ServerMessage;
    } catch {
      this.options.logger.warn('channel: ignoring a message that is not JSON');
      return;
    }
    // An inline offer whose document frame did not come next is handed over without it.
    const waiting = this.awaitingDocument;
    this.awaitingDocument = undefined;
    if (waiting) this.options.onMessage(waiting);
    if (message.type === 'job.offer' && message.inline === true) {
      this.awaitingDocument = message;
      return;
    }
    if (message.type === 'hello') {
      this.attempt = 0;
      this.version = typeof message.protocol === 'number' ? message.protocol : 1;
      this.setUp(true);
      this.options.logger.info(
        { connector: message.connector_id, protocol: message.protocol ?? 1 },
        'channel connected',
      );
    } else if (message.type === 'ping') {
      this.send({ type: 'pong', t: message.t });
    }
    this.options.onMessage(message);
  }

  private closed(socket: WebSocket, code: number, token: string): void {
    if (this.socket === socket) this.socket = undefined;
    const waiting = this.awaitingDocument;
    this.awaitingDocument = undefined;
    if (waiting) this.options.onMessage(waiting);
    this.setUp(false);
    if (this.stopped) return;
    if (code === CHANNEL_CLOSE.unauthorized) this.options.tokens.invalidate(token);
    if (code === CHANNEL_CLOSE.unknownConnector) this.options.onUnknownConnector?.();
    this.options.logger.info({ code }, 'channel closed; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.options.backoff, this.attempt++);
    this.timer = setTimeout(() => void this.connect(), delay);
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    this.options.onState?.(up);
  }
}

/** The bytes of a binary frame (ws hands a Buffer, an ArrayBuffer or fragments). */
function asBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The X-Host-Id header naming `connectorId`, or none. */
function hostHeader(connectorId: string | undefined): Record<string, string> {
  return connectorId === undefined ? {} : { 'x-host-id': connectorId };
}
