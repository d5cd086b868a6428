/**
 * `hid://vid:pid?mode=keyboard|raw`: a USB HID card reader opened with node-hid (loaded lazily).
 * In keyboard mode the 8-byte boot reports are decoded to typed card numbers; in raw mode vendor
 * reports carry the UID and its removal (layout from the reader profile or `length=`/`data=`
 * offsets in the URI). An `error` from the device (unplugged) closes it, reports `disconnected`
 * and reopens with backoff. Whoever calls start() calls stop().
 */
import type { Clock } from '../../lib/clock.js';
import type { BackoffPolicy } from '../../lib/backoff.js';
import { ValidationError, errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type OpenedDevice, ReconnectingReader } from '../reconnecting-reader.js';
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
export class HidCardReader extends ReconnectingReader<HidDeviceLike> {
  constructor(
    uri: string,
    private readonly deps: HidReaderDeps,
  ) {
    super(uri, deps, 'hid', { initialMs: 500, maxMs: 5000, factor: 2, jitter: 0.2 });
  }

  /** Raw readers see the card leave; keyboard wedges do not. */
  get reportsRemoval(): boolean {
    return parseHidUri(this.uri, this.deps.profile).mode === 'raw';
  }

  protected validate(): void {
    parseHidUri(this.uri, this.deps.profile);
  }

  protected async open(): Promise<OpenedDevice<HidDeviceLike>> {
    const settings = parseHidUri(this.uri, this.deps.profile);
    const device = await (this.deps.open ?? nodeHidOpener)(settings.vendorId, settings.productId);
    return { device, details: { mode: settings.mode } };
  }

  protected attach(device: HidDeviceLike, lost: (reason: string) => void): void {
    device.on('data', this.reportHandler(parseHidUri(this.uri, this.deps.profile)));
    device.on('error', (error) => lost(errorMessage(error)));
  }

  protected async close(device: HidDeviceLike): Promise<void> {
    device.removeAllListeners();
    try {
      device.close();
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'closing an unplugged hid device failed');
    }
  }

  private reportHandler(settings: HidReaderSettings): (data: Buffer) => void {
    if (settings.mode === 'keyboard') {
      const decoder = new KeyboardReportDecoder();
      return (data) => {
        const raw = decoder.push(data);
        if (raw) this.emitCard({ type: 'card', raw });
      };
    }
    let present: string | undefined;
    return (data) => {
      const event = decodeRawReport(data, settings.layout);
      if (event.kind === 'card' && event.uid !== present) {
        present = event.uid;
        this.emitCard({ type: 'card', raw: event.uid });
      } else if (event.kind === 'removed' && present !== undefined) {
        present = undefined;
        this.emitCard({ type: 'removed' });
      }
    };
  }
}
