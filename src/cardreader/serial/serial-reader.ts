/**
 * `serial:///dev/ttyUSB0?baud=9600&framing=line|stx-etx[:n]|fixed:<n>`: a card reader on a
 * serial line (USB CDC or RS-232), read with serialport (loaded lazily, only when configured).
 * Bytes are cut into frames (framing.ts). A reader profile (`?profile=<id>`) supplies the serial
 * settings and framing; a parameter in the URI overrides the profile, and the built-in defaults
 * (9600 baud, line framing) apply only when neither names a setting. When the port closes under
 * us (unplugged) the reader reports `disconnected` and reopens with backoff until it is back or
 * stop() is called.
 */
import type { Clock } from '../../lib/clock.js';
import type { BackoffPolicy } from '../../lib/backoff.js';
import { ValidationError, errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { createFramer, type FramingSpec, parseFraming } from '../framing.js';
import type { ReaderProfile } from '../reader-profiles.js';
import { type OpenedDevice, ReconnectingReader } from '../reconnecting-reader.js';
import { BAUD_RATE_RULE as baudRule, DEFAULT_BAUD_RATE, isBaudRate } from './baud-rates.js';

export { DEFAULT_BAUD_RATE, isBaudRate } from './baud-rates.js';

/** The part of serialport's SerialPort the reader uses (tests may pass their own). */
export interface SerialPortLike {
  open(callback: (error: Error | null) => void): void;
  close(callback?: (error: Error | null) => void): void;
  on(event: 'data', listener: (data: Buffer) => void): unknown;
  on(event: 'close' | 'error', listener: (error?: Error | null) => void): unknown;
  removeAllListeners(): unknown;
  readonly isOpen: boolean;
}

/** Makes an unopened port. */
export type SerialPortFactory = (options: { path: string; baudRate: number }) => Promise<SerialPortLike>;

/** The default factory: serialport, imported on first use. */
export const serialportFactory: SerialPortFactory = async ({ path, baudRate }) => {
  const { SerialPort } = await import('serialport');
  return new SerialPort({ path, baudRate, autoOpen: false }) as unknown as SerialPortLike;
};

/** Settings read from a serial:// URI and the reader's profile. */
export interface SerialReaderSettings {
  path: string;
  baudRate: number;
  framing: FramingSpec;
}

/** What a reader profile contributes to a serial reader. */
export type SerialProfileSettings = Pick<ReaderProfile, 'serial' | 'framing'>;

/**
 * Parses a serial:// URI. Each setting comes from the URI when it names it, else from the
 * profile, else from the default (9600 baud, line framing).
 */
export function parseSerialUri(uri: string, profile?: SerialProfileSettings): SerialReaderSettings {
  const url = new URL(uri);
  const path = decodeURIComponent(url.pathname);
  if (url.protocol !== 'serial:' || !path || path === '/') {
    throw new ValidationError('reader', `"${uri}" must look like serial:///dev/ttyUSB0?baud=9600`);
  }
  const baudText = url.searchParams.get('baud');
  let baudRate: number;
  if (baudText !== null) {
    baudRate = Number(baudText);
    if (!isBaudRate(baudRate)) throw new ValidationError('baud', baudRule);
  } else if (profile?.serial?.baudRate !== undefined) {
    baudRate = profile.serial.baudRate;
    if (!isBaudRate(baudRate)) throw new ValidationError('profile serial.baudRate', baudRule);
  } else baudRate = DEFAULT_BAUD_RATE;
  const framingText = url.searchParams.get('framing');
  const framing = framingText ? parseFraming(framingText) : (profile?.framing ?? { type: 'line' });
  return { path, baudRate, framing };
}

/** Dependencies of a serial reader. */
export interface SerialReaderDeps {
  logger: Logger;
  clock: Clock;
  /** The reader's profile: its serial settings and framing apply where the URI names none. */
  profile?: SerialProfileSettings;
  factory?: SerialPortFactory;
  reconnect?: BackoffPolicy;
}

/** See the file comment. */
export class SerialCardReader extends ReconnectingReader<SerialPortLike> {
  readonly reportsRemoval = false;

  constructor(
    uri: string,
    private readonly deps: SerialReaderDeps,
  ) {
    super(uri, deps, 'serial', { initialMs: 250, maxMs: 5000, factor: 2, jitter: 0.2 });
  }

  protected validate(): void {
    parseSerialUri(this.uri, this.deps.profile);
  }

  protected async open(): Promise<OpenedDevice<SerialPortLike>> {
    const settings = parseSerialUri(this.uri, this.deps.profile);
    const port = await (this.deps.factory ?? serialportFactory)({
      path: settings.path,
      baudRate: settings.baudRate,
    });
    await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
    return { device: port, details: { baudRate: settings.baudRate } };
  }

  protected attach(port: SerialPortLike, lost: (reason: string) => void): void {
    const framer = createFramer(parseSerialUri(this.uri, this.deps.profile).framing);
    port.on('data', (data) => {
      for (const raw of framer.push(data)) this.emitCard({ type: 'card', raw });
    });
    const onLost = (error?: Error | null) => lost(error ? errorMessage(error) : 'port closed');
    port.on('close', onLost);
    port.on('error', onLost);
  }

  protected async close(port: SerialPortLike): Promise<void> {
    if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    port.removeAllListeners();
  }
}
