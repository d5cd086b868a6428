import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CardEvent, CardReader } from '../../src/cardreader/card-reader.js';
import { defaultCardReaderRegistry } from '../../src/cardreader/reader-registry.js';
import {
  SerialCardReader,
  type SerialPortFactory,
  serialportFactory,
} from '../../src/cardreader/serial/serial-reader.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { peersAvailable } from '../support/peers.js';
import { fastFixedProfile } from '../support/reader-profiles.js';

const hasPeers = peersAvailable('socat', 'stty');
const dirs: string[] = [];
const processes: ChildProcess[] = [];
const readers: CardReader[] = [];

/** A socat pty pair: the reader opens `reader`, the test writes swipes into `test`. */
async function ptyPair(dir: string): Promise<{ reader: string; test: string; proc: ChildProcess }> {
  const reader = join(dir, 'ttyREADER');
  const test = join(dir, 'ttyTEST');
  const proc = spawn('socat', [`pty,raw,echo=0,link=${reader}`, `pty,raw,echo=0,link=${test}`], {
    stdio: 'ignore',
  });
  processes.push(proc);
  await expect.poll(() => existsSync(reader) && existsSync(test)).toBe(true);
  return { reader, test, proc };
}

async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.stop()));
  await Promise.all(processes.splice(0).map(kill));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function collect(reader: CardReader) {
  const events: CardEvent[] = [];
  reader.onEvent((e) => events.push(e));
  return { events, cards: () => events.flatMap((e) => (e.type === 'card' ? [e.raw] : [])) };
}

/** The real serialport factory, counting the bytes the port delivers (to know a write has arrived). */
function countingFactory(): { factory: SerialPortFactory; received: () => number } {
  let bytes = 0;
  const factory: SerialPortFactory = async (options) => {
    const port = await serialportFactory(options);
    port.on('data', (data) => {
      bytes += data.length;
    });
    return port;
  };
  return { factory, received: () => bytes };
}

/** The speed a tty is set to, as `stty -F` reports it (a pty keeps the speed its opener set). */
function ttySpeed(path: string): number {
  const match = /speed (\d+) baud/.exec(execFileSync('stty', ['-F', path], { encoding: 'utf8' }));
  if (!match) throw new Error(`stty -F ${path} reported no speed`);
  return Number(match[1]);
}

describe.runIf(hasPeers)('serial card reader on a socat pty pair', () => {
  it('reads line-framed swipes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-serial-'));
    dirs.push(dir);
    const pair = await ptyPair(dir);
    const reader = new SerialCardReader(`serial://${pair.reader}?baud=9600`, {
      logger: silentLogger(),
      clock: systemClock,
    });
    readers.push(reader);
    const { cards } = collect(reader);
    await reader.start();
    writeFileSync(pair.test, '04A1B2C3D4\r\n');
    writeFileSync(pair.test, '0012345678\r\n');
    await expect.poll(cards).toEqual(['04A1B2C3D4', '0012345678']);
  });

  it('reads STX/ETX frames with a checksum byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-serial-'));
    dirs.push(dir);
    const pair = await ptyPair(dir);
    const reader = new SerialCardReader(`serial://${pair.reader}?framing=stx-etx:1`, {
      logger: silentLogger(),
      clock: systemClock,
    });
    readers.push(reader);
    const { cards } = collect(reader);
    await reader.start();
    writeFileSync(pair.test, Buffer.from('\x020F00AB12CD\x03\x7f\x02', 'latin1'));
    writeFileSync(pair.test, Buffer.from('1122334455\x03\x00', 'latin1'));
    await expect.poll(cards).toEqual(['0F00AB12CD', '1122334455']);
  });

  it('reads fixed-length records written back to back and split across writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-serial-'));
    dirs.push(dir);
    const pair = await ptyPair(dir);
    const { factory, received } = countingFactory();
    const reader = new SerialCardReader(`serial://${pair.reader}?framing=fixed:10`, {
      logger: silentLogger(),
      clock: systemClock,
      factory,
    });
    readers.push(reader);
    const { cards } = collect(reader);
    await reader.start();
    writeFileSync(pair.test, '04A1B2C3D40012345678'); // two records in one write
    await expect.poll(cards).toEqual(['04A1B2C3D4', '0012345678']);
    writeFileSync(pair.test, 'FEDC'); // the first 4 bytes of a record ...
    await expect.poll(received).toBe(24);
    expect(cards()).toEqual(['04A1B2C3D4', '0012345678']); // ... are held until the rest comes
    writeFileSync(pair.test, 'BA9876');
    await expect.poll(cards).toEqual(['04A1B2C3D4', '0012345678', 'FEDCBA9876']);
    expect(received()).toBe(30);
  });

  it.each([
    ['the profile', '?profile=test-fixed-19200', 19200],
    ['the URI over the profile', '?profile=test-fixed-19200&baud=57600', 57600],
    ['the default when neither names one', '?framing=fixed:10', 9600],
  ])('opens the port at the baud rate of %s', async (_case, query, baudRate) => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-serial-'));
    dirs.push(dir);
    const pair = await ptyPair(dir);
    expect(ttySpeed(pair.reader)).not.toBe(baudRate); // socat leaves its ptys at 38400
    const reader = defaultCardReaderRegistry().create(`serial://${pair.reader}${query}`, {
      logger: silentLogger(),
      clock: systemClock,
      profiles: [fastFixedProfile],
    });
    readers.push(reader);
    const { events, cards } = collect(reader);
    await reader.start();
    expect(events.map((e) => e.type)).toEqual(['connected']);
    expect(ttySpeed(pair.reader)).toBe(baudRate);
    writeFileSync(pair.test, '0F00AB12CD'); // fixed-length framing, from the profile or the URI
    await expect.poll(cards).toEqual(['0F00AB12CD']);
  });

  it('recovers by itself when the device goes away and comes back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-serial-'));
    dirs.push(dir);
    const first = await ptyPair(dir);
    const reader = new SerialCardReader(`serial://${first.reader}`, {
      logger: silentLogger(),
      clock: systemClock,
      reconnect: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0 },
    });
    readers.push(reader);
    const { events, cards } = collect(reader);
    await reader.start();
    writeFileSync(first.test, 'AAAA\n');
    await expect.poll(cards).toEqual(['AAAA']);
    await kill(first.proc); // unplug
    await expect.poll(() => events.some((e) => e.type === 'disconnected')).toBe(true);
    const second = await ptyPair(dir); // re-plug at the same path
    await expect.poll(() => events.filter((e) => e.type === 'connected').length).toBe(2);
    writeFileSync(second.test, 'BBBB\n');
    await expect.poll(cards).toEqual(['AAAA', 'BBBB']);
  });
});
