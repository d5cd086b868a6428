/**
 * `hid://vid:pid?mode=keyboard|raw`: a USB HID card reader opened with node-hid (loaded lazily).
 * In keyboard mode the 8-byte boot reports are decoded to typed card numbers; in raw mode vendor
 * reports carry the UID and its removal (layout from the reader profile or `length=`/`data=`
 * offsets in the URI). An `error` from the device (unplugged) closes it, reports `disconnected`
 * and reopens with backoff. Whoever calls start() calls stop().
 */
import type { Clock } from '../../lib/clock.js';
import { type BackoffPolicy, backoffDelay } from '../../lib/backoff.js';
import { ValidationError, errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type CardEvent, CardEventHub, type CardReader } from '../card-reader.js';
import { decodeRawReport, KeyboardReportDecoder, type RawReportLayout } from './hid-report-decoder.js';

/** The part of node-hid's HID the reader uses. */
export interface HidDeviceLike {
  on(event: 'data', listener: (data: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(): unknown;
  close(): void;
}

/** Opens a device by USB ids. */
export type HidOpener = (vendorId: number, productId: number) => Promise<HidDeviceLike>;

/** The default opener: node-hid's HID, imported on first use. */
export const nodeHidOpener: HidOpener = async (vendorId, productId) => {
  const hid = await import('node-hid');
  return new hid.HID(vendorId, productId) as unknown as HidDeviceLike;
};

/** Settings of a hid:// URI. */
export interface HidReaderSettings {
  vendorId: number;
  productId: number;
  mode: 'keyboard' | 'raw';
  layout: RawReportLayout;
}

/** Parses a hid:// URI; a profile's mode and raw layout apply where the URI says nothing. */
export function parseHidUri(
  uri: string,
  profile?: Partial<Omit<HidReaderSettings, 'vendorId' | 'productId'>>,
) {
  const match = /^hid:\/\/([0-9a-f]{4}):([0-9a-f]{4})(?:\?(.*))?$/i.exec(uri);
  if (!match)
    throw new ValidationError('reader', `"${uri}" must look like hid://0c27:3bfa (hex vendor:product)`);
  const query = new URLSearchParams(match[3] ?? '');
  const mode = query.get('mode') ?? profile?.mode ?? 'keyboard';
  if (mode !== 'keyboard' && mode !== 'raw') throw new ValidationError('mode', 'must be keyboard or raw');
  const offset = (name: string, fallback: number) => {
    const value = Number(query.get(name) ?? fallback);
    if (!Number.isInteger(value) || value < 0 || value > 63)
      throw new ValidationError(name, 'must be 0 to 63');
    return value;
  };
  const layout = {
    lengthOffset: offset('length', profile?.layout?.lengthOffset ?? 0),
    dataOffset: offset('data', profile?.layout?.dataOffset ?? 1),
  };
  const settings: HidReaderSettings = {
    vendorId: Number.parseInt(match[1]!, 16),
    productId: Number.parseInt(match[2]!, 16),
    mode,
    layout,
  };
  return settings;
}

/** Dependencies of a HID reader. */
export interface HidReaderDeps {
  logger: Logger;
  clock: Clock;
  profile?: Partial<Omit<HidReaderSettings, 'vendorId' | 'productId'>>;
  open?: HidOpener;
  reconnect?: BackoffPolicy;
}

/** See the file comment. */
export class HidCardReader implements CardReader {
  private readonly hub = new CardEventHub();
  private device: HidDeviceLike | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;

  constructor(
    readonly uri: string,
    private readonly deps: HidReaderDeps,
  ) {}

  /** Raw readers see the card leave; keyboard wedges do not. */
  get reportsRemoval(): boolean {
    return parseHidUri(this.uri, this.deps.profile).mode === 'raw';
  }

  async start(): Promise<void> {
    parseHidUri(this.uri, this.deps.profile);
    this.running = true;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.release();
  }

  onEvent(listener: (event: CardEvent) => void): () => void {
    return this.hub.add(listener);
  }

  private async connect(): Promise<void> {
    const settings = parseHidUri(this.uri, this.deps.profile);
    try {
      const device = await (this.deps.open ?? nodeHidOpener)(settings.vendorId, settings.productId);
      if (!this.running) return device.close();
      this.device = device;
      this.attempt = 0;
      const handle = this.reportHandler(settings);
      device.on('data', handle);
      device.on('error', (error) => this.lost(device, errorMessage(error)));
      this.deps.logger.info({ mode: settings.mode }, 'hid card reader open');
      this.hub.emit({ type: 'connected', at: this.deps.clock.now() });
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'hid card reader not available; retrying');
      this.scheduleReconnect();
    }
  }

  private reportHandler(settings: HidReaderSettings): (data: Buffer) => void {
    if (settings.mode === 'keyboard') {
      const decoder = new KeyboardReportDecoder();
      return (data) => {
        const raw = decoder.push(data);
        if (raw) this.hub.emit({ type: 'card', raw, at: this.deps.clock.now() });
      };
    }
    let present: string | undefined;
    return (data) => {
      const event = decodeRawReport(data, settings.layout);
      const at = this.deps.clock.now();
      if (event.kind === 'card' && event.uid !== present) {
        present = event.uid;
        this.hub.emit({ type: 'card', raw: event.uid, at });
      } else if (event.kind === 'removed' && present !== undefined) {
        present = undefined;
        this.hub.emit({ type: 'removed', at });
      }
    };
  }

  private lost(device: HidDeviceLike, reason: string): void {
    if (this.device !== device) return;
    this.release();
    if (!this.running) return;
    this.deps.logger.warn({ reason }, 'hid card reader lost');
    this.hub.emit({ type: 'disconnected', at: this.deps.clock.now(), reason });
    this.scheduleReconnect();
  }

  private release(): void {
    const device = this.device;
    this.device = undefined;
    if (!device) return;
    device.removeAllListeners();
    try {
      device.close();
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'closing an unplugged hid device failed');
    }
  }

  private scheduleReconnect(): void {
    if (!this.running) return;
    const policy = this.deps.reconnect ?? { initialMs: 500, maxMs: 5000, factor: 2, jitter: 0.2 };
    this.timer = setTimeout(() => void this.connect(), backoffDelay(policy, this.attempt++));
  }
}
