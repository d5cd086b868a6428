import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { defaultCardReaderRegistry } from '../../../../src/cardreader/reader-registry.js';
import {
  parseSerialUri,
  type SerialPortFactory,
  type SerialPortLike,
} from '../../../../src/cardreader/serial/serial-reader.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { fastFixedProfile } from '../../../support/reader-profiles.js';

const profile = fastFixedProfile;

/** A port that opens at once and feeds the reader what the test emits. */
class FakePort extends EventEmitter implements SerialPortLike {
  isOpen = false;
  open(callback: (error: Error | null) => void): void {
    this.isOpen = true;
    callback(null);
  }
  close(callback?: (error: Error | null) => void): void {
    this.isOpen = false;
    callback?.(null);
  }
}

/** Opens a serial reader through the registry and returns what it handed the serialport boundary. */
async function openThroughRegistry(uri: string) {
  const opened: Parameters<SerialPortFactory>[0][] = [];
  const port = new FakePort();
  const serialFactory: SerialPortFactory = async (options) => {
    opened.push(options);
    return port;
  };
  const reader = defaultCardReaderRegistry().create(uri, {
    logger: silentLogger(),
    clock: new ManualClock(),
    profiles: [profile],
    serialFactory,
  });
  const cards: string[] = [];
  reader.onEvent((e) => e.type === 'card' && cards.push(e.raw));
  await reader.start();
  return { reader, port, opened, cards };
}

describe('serial reader settings: URI over profile over default', () => {
  it.each([
    ['profile only', 'serial:///dev/ttyS0', { serial: { baudRate: 19200 } }, 19200],
    ['URI overrides profile', 'serial:///dev/ttyS0?baud=4800', { serial: { baudRate: 19200 } }, 4800],
    ['URI without profile', 'serial:///dev/ttyS0?baud=115200', undefined, 115200],
    ['profile without serial settings', 'serial:///dev/ttyS0', { framing: { type: 'line' as const } }, 9600],
    ['neither', 'serial:///dev/ttyS0', undefined, 9600],
  ])('baud rate: %s', (_case, uri, settings, baudRate) => {
    expect(parseSerialUri(uri, settings).baudRate).toBe(baudRate);
  });

  it('takes framing the same way', () => {
    const fixed = { framing: { type: 'fixed' as const, length: 10 } };
    expect(parseSerialUri('serial:///dev/ttyS0', fixed).framing).toEqual({ type: 'fixed', length: 10 });
    expect(parseSerialUri('serial:///dev/ttyS0?framing=stx-etx', fixed).framing).toEqual({ type: 'stx-etx' });
    expect(parseSerialUri('serial:///dev/ttyS0').framing).toEqual({ type: 'line' });
  });

  it('refuses a bad baud rate from the URI even when the profile has a good one, and a bad one from a profile', () => {
    expect(() => parseSerialUri('serial:///dev/ttyS0?baud=fast', { serial: { baudRate: 19200 } })).toThrow(
      'baud: must be an integer from 300 to 921600',
    );
    expect(() => parseSerialUri('serial:///dev/ttyS0', { serial: { baudRate: 19200.5 } })).toThrow(
      'profile serial.baudRate: must be an integer from 300 to 921600',
    );
  });

  it('opens the port at the profile baud rate when the URI names a profile', async () => {
    const { reader, opened, port, cards } = await openThroughRegistry(
      'serial:///dev/ttyS0?profile=test-fixed-19200',
    );
    expect(opened).toEqual([{ path: '/dev/ttyS0', baudRate: 19200 }]);
    port.emit('data', Buffer.from('0123456789ABCDE'));
    port.emit('data', Buffer.from('FGHIJ'));
    expect(cards).toEqual(['0123456789', 'ABCDEFGHIJ']);
    await reader.stop();
  });

  it('opens the port at the URI baud rate over the profile one', async () => {
    const { reader, opened } = await openThroughRegistry(
      'serial:///dev/ttyS0?profile=test-fixed-19200&baud=57600',
    );
    expect(opened).toEqual([{ path: '/dev/ttyS0', baudRate: 57600 }]);
    await reader.stop();
  });

  it('opens the port at 9600 baud when neither URI nor profile names a rate', async () => {
    const { reader, opened } = await openThroughRegistry('serial:///dev/ttyS0');
    expect(opened).toEqual([{ path: '/dev/ttyS0', baudRate: 9600 }]);
    await reader.stop();
  });
});
