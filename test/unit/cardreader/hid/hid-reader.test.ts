import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { CardEvent } from '../../../../src/cardreader/card-reader.js';
import { decodeRawReport, KeyboardReportDecoder } from '../../../../src/cardreader/hid/hid-report-decoder.js';
import { HidCardReader, type HidDeviceLike, parseHidUri } from '../../../../src/cardreader/hid/hid-reader.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';

/** Recorded boot keyboard reports of a wedge typing "04a1" + Enter (press/release pairs). */
const KEY_UP = [0, 0, 0, 0, 0, 0, 0, 0];
const press = (usage: number, mods = 0) => [mods, 0, usage, 0, 0, 0, 0, 0];
const recordedWedge = [
  press(0x27),
  KEY_UP,
  press(0x21),
  KEY_UP,
  press(0x04, 0x02),
  KEY_UP,
  press(0x1e),
  KEY_UP,
  press(0x28),
  KEY_UP,
];

/** node-hid's HID faked at its surface: on('data'/'error'), write, getFeatureReport, close. */
class FakeHid extends EventEmitter implements HidDeviceLike {
  closed = false;
  close(): void {
    this.closed = true;
  }
  write(values: number[]): number {
    return values.length;
  }
  getFeatureReport(_id: number, length: number): number[] {
    return new Array(length).fill(0);
  }
}

describe('keyboard report decoder', () => {
  it('types a card number from recorded boot reports', () => {
    const decoder = new KeyboardReportDecoder();
    const out = recordedWedge.map((r) => decoder.push(r)).filter(Boolean);
    expect(out).toEqual(['04A1']);
  });
  it('ignores held keys and handles rollover and report ids', () => {
    const decoder = new KeyboardReportDecoder();
    decoder.push([0, 0, 0x1e, 0, 0, 0, 0, 0]);
    decoder.push([0, 0, 0x1e, 0x1f, 0, 0, 0, 0]); // 1 held, 2 pressed
    expect(decoder.push([1, 0, 0, 0x58, 0, 0, 0, 0, 0])).toBe('12'); // keypad Enter after a report id
  });
});

describe('raw report decoder', () => {
  it.each([
    [[4, 0x04, 0xa1, 0xb2, 0xc3, 0, 0, 0], { kind: 'card', uid: '04A1B2C3' }],
    [[0, 0, 0, 0, 0, 0, 0, 0], { kind: 'removed' }],
    [[7, 1, 2], { kind: 'ignored' }],
  ])('decodes %j', (report, event) => {
    expect(decodeRawReport(report, { lengthOffset: 0, dataOffset: 1 })).toEqual(event);
  });
});

describe('HidCardReader with node-hid faked', () => {
  it('parses hid:// URIs and refuses bad ones', () => {
    expect(parseHidUri('hid://0c27:3bfa?mode=raw&data=2')).toMatchObject({
      vendorId: 0x0c27,
      productId: 0x3bfa,
      mode: 'raw',
      layout: { lengthOffset: 0, dataOffset: 2 },
    });
    expect(() => parseHidUri('hid://xyz')).toThrow('hex vendor:product');
    expect(() => parseHidUri('hid://0c27:3bfa?mode=mouse')).toThrow('mode: must be keyboard or raw');
  });

  it('reads a keyboard wedge, recovers from unplug and re-plug', async () => {
    const devices: FakeHid[] = [];
    let present = true;
    const open = async (vid: number, pid: number) => {
      expect([vid, pid]).toEqual([0x0c27, 0x3bfa]);
      if (!present) throw new Error('could not open HID device');
      const device = new FakeHid();
      devices.push(device);
      return device;
    };
    const reconnect = { initialMs: 1, maxMs: 2, factor: 1, jitter: 0 };
    const reader = new HidCardReader('hid://0c27:3bfa', {
      logger: silentLogger(),
      clock: new ManualClock(),
      open,
      reconnect,
    });
    const events: CardEvent['type'][] = [];
    const cards: string[] = [];
    reader.onEvent((e) => {
      events.push(e.type);
      if (e.type === 'card') cards.push(e.raw);
    });
    await reader.start();
    for (const report of recordedWedge) devices[0]!.emit('data', Buffer.from(report));
    present = false;
    devices[0]!.emit('error', new Error('could not read from HID device'));
    expect(devices[0]!.closed).toBe(true);
    present = true;
    await expect.poll(() => devices.length).toBe(2);
    for (const report of recordedWedge) devices[1]!.emit('data', Buffer.from(report));
    await reader.stop();
    expect(cards).toEqual(['04A1', '04A1']);
    expect(events).toEqual(['connected', 'card', 'disconnected', 'connected', 'card']);
    expect(devices[1]!.closed).toBe(true);
  });

  it('reports presence and removal from vendor raw reports', async () => {
    const device = new FakeHid();
    const reader = new HidCardReader('hid://1fc9:0083?mode=raw', {
      logger: silentLogger(),
      clock: new ManualClock(),
      open: async () => device,
    });
    const events: string[] = [];
    reader.onEvent((e) => events.push(e.type === 'card' ? `card ${e.raw}` : e.type));
    await reader.start();
    expect(reader.reportsRemoval).toBe(true);
    for (const report of [
      [4, 1, 2, 3, 4, 0, 0, 0],
      [4, 1, 2, 3, 4, 0, 0, 0], // repeated while present
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0],
    ]) {
      device.emit('data', Buffer.from(report));
    }
    await reader.stop();
    expect(events).toEqual(['connected', 'card 01020304', 'removed']);
  });

  it('node-hid loads (smoke)', async () => {
    const hid = await import('node-hid');
    expect(Array.isArray(hid.devices())).toBe(true);
  });
});
