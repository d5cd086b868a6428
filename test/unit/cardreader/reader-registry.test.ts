import { describe, expect, it } from 'vitest';
import { HidCardReader } from '../../../src/cardreader/hid/hid-reader.js';
import { KeyboardCardReader } from '../../../src/cardreader/keyboard/keyboard-reader.js';
import { loadReaderProfiles, parseReaderProfile } from '../../../src/cardreader/reader-profiles.js';
import { defaultCardReaderRegistry, profileForUri } from '../../../src/cardreader/reader-registry.js';
import { SerialCardReader, parseSerialUri } from '../../../src/cardreader/serial/serial-reader.js';
import { parseSwipeLine, SocketCardReader } from '../../../src/cardreader/socket/socket-reader.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/log/logger.js';
import { PassThrough } from 'node:stream';

const context = { logger: silentLogger(), clock: new ManualClock() };

describe('reader profiles and registry', () => {
  it('loads the shipped profiles (at least three families)', async () => {
    const profiles = await loadReaderProfiles();
    expect(profiles.length).toBeGreaterThanOrEqual(3);
    expect(profileForUri('hid://0C27:3BFA', profiles)?.id).toBe('rfideas-pcprox');
    expect(profileForUri('serial:///dev/ttyACM0?profile=elatec-twn4', profiles)?.connection).toBe('serial');
    expect(() => profileForUri('serial:///dev/x?profile=nope', profiles)).toThrow(
      'unknown reader profile "nope"',
    );
  });

  it('names every problem of a bad profile', () => {
    expect(() =>
      parseReaderProfile(
        {
          id: 'Bad Id',
          name: 'x',
          vendor: 'v',
          connection: 'usb',
          usb: [{ vendorId: '12' }],
          transforms: ['x'],
        },
        'bad.json',
      ),
    ).toThrow(/bad.json: id: must be kebab-case.*connection: must be one of.*usb\[0\].vendorId.*transforms/);
  });

  it('refuses a profile whose serial baud rate is not one', () => {
    const profile = {
      id: 'slow',
      name: 'x',
      vendor: 'v',
      connection: 'serial',
      usb: [],
      transforms: [],
    };
    for (const serial of [{ baudRate: 12 }, { baudRate: '19200' }, {}, null]) {
      expect(() => parseReaderProfile({ ...profile, serial }, 'slow.json')).toThrow(
        'slow.json: serial.baudRate: must be an integer from 300 to 921600',
      );
    }
    expect(parseReaderProfile({ ...profile, serial: { baudRate: 19200 } }, 'ok.json').serial).toEqual({
      baudRate: 19200,
    });
  });

  it('picks readers by scheme and refuses unknown schemes', () => {
    const registry = defaultCardReaderRegistry();
    expect(registry.create('serial:///dev/ttyUSB0', context)).toBeInstanceOf(SerialCardReader);
    expect(registry.create('hid://0c27:3bfa', context)).toBeInstanceOf(HidCardReader);
    expect(registry.create('keyboard:', context)).toBeInstanceOf(KeyboardCardReader);
    expect(registry.create('socket://127.0.0.1:4711', context)).toBeInstanceOf(SocketCardReader);
    expect(() => registry.create('nfc://x', context)).toThrow('unknown card reader scheme "nfc"');
  });

  it('parses serial URIs with profile framing as fallback', () => {
    expect(parseSerialUri('serial:///dev/ttyUSB0?baud=19200&framing=fixed:10')).toEqual({
      path: '/dev/ttyUSB0',
      baudRate: 19200,
      framing: { type: 'fixed', length: 10 },
    });
    expect(parseSerialUri('serial:///dev/ttyS0', { framing: { type: 'stx-etx' } }).framing).toEqual({
      type: 'stx-etx',
    });
    expect(() => parseSerialUri('serial:///dev/ttyS0?baud=12')).toThrow('baud: must be an integer');
  });

  it.each([
    ['04A1', { type: 'card', raw: '04A1', wait: false }],
    ['swipe 1234', { type: 'card', raw: '1234', wait: false }],
    ['wait 1234', { type: 'card', raw: '1234', wait: true }],
    ['remove', { type: 'removed' }],
  ])('parses swipe line %s', (line, event) => {
    expect(parseSwipeLine(line)).toEqual(event);
  });

  it('reads a keyboard wedge from its input stream', async () => {
    const input = new PassThrough();
    const reader = new KeyboardCardReader('keyboard:', { ...context, input });
    const cards: string[] = [];
    reader.onEvent((e) => e.type === 'card' && cards.push(e.raw));
    await reader.start();
    input.write('0012');
    input.write('34\r\n\n5678\n');
    await expect.poll(() => cards).toEqual(['001234', '5678']);
    await reader.stop();
  });
});
