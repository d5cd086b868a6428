/**
 * The lifecycle the device readers (serial, HID) share: open on start, report `connected`,
 * watch for the device going away, report `disconnected` and reopen with backoff until the
 * device is back or stop() is called. A subclass says how to open, listen to and close its
 * device; this class owns the state. Whoever calls start() calls stop().
 */
import { type BackoffPolicy, backoffDelay } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../log/logger.js';
import { type CardEvent, CardEventHub, type CardReader } from './card-reader.js';

/** What every reconnecting reader is given. */
export interface ReconnectingReaderDeps {
  logger: Logger;
  clock: Clock;
  /** Delays between reopen attempts; each reader has its own default. */
  reconnect?: BackoffPolicy;
}

/** A device that is open, with what to log about it. */
export interface OpenedDevice<D> {
  device: D;
  details: Record<string, unknown>;
}

/** See the file comment. `D` is the open device handle. */
export abstract class ReconnectingReader<D> implements CardReader {
  abstract readonly reportsRemoval: boolean;
  protected readonly hub = new CardEventHub();
  private device: D | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;

  constructor(
    readonly uri: string,
    private readonly base: ReconnectingReaderDeps,
    /** `serial`, `hid`: the word in log lines. */
    private readonly kind: string,
    private readonly defaultReconnect: BackoffPolicy,
  ) {}

  /** Checks the URI (throws a ValidationError naming the field); called by start(). */
  protected abstract validate(): void;
  /** Opens the device (throws when it is absent). */
  protected abstract open(): Promise<OpenedDevice<D>>;
  /** Listens to an open device: emits its cards, calls `lost` when it goes away. */
  protected abstract attach(device: D, lost: (reason: string) => void): void;
  /** Stops listening and closes the device; never throws. */
  protected abstract close(device: D): Promise<void>;

  /** Opens the device; when it is absent the reader keeps retrying in the background. */
  async start(): Promise<void> {
    this.validate();
    this.running = true;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    const device = this.device;
    this.device = undefined;
    if (device !== undefined) await this.close(device);
  }

  onEvent(listener: (event: CardEvent) => void): () => void {
    return this.hub.add(listener);
  }

  /** A card (or its removal) seen now. */
  protected emitCard(event: { type: 'card'; raw: string } | { type: 'removed' }): void {
    this.hub.emit({ ...event, at: this.base.clock.now() });
  }

  private async connect(): Promise<void> {
    try {
      const { device, details } = await this.open();
      if (!this.running) return await this.close(device);
      this.device = device;
      this.attempt = 0;
      this.attach(device, (reason) => this.lost(device, reason));
      this.base.logger.info(details, `${this.kind} card reader open`);
      this.hub.emit({ type: 'connected', at: this.base.clock.now() });
    } catch (error) {
      this.base.logger.warn({ err: error }, `${this.kind} card reader not available; retrying`);
      this.scheduleReconnect();
    }
  }

  private lost(device: D, reason: string): void {
    if (this.device !== device) return;
    this.device = undefined;
    void this.close(device);
    if (!this.running) return;
    this.base.logger.warn({ reason }, `${this.kind} card reader lost`);
    this.hub.emit({ type: 'disconnected', at: this.base.clock.now(), reason });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (!this.running) return;
    const delay = backoffDelay(this.base.reconnect ?? this.defaultReconnect, this.attempt++);
    this.timer = setTimeout(() => void this.connect(), delay);
  }
}
