import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CardEvent } from '../../src/cardreader/card-reader.js';
import { SerialCardReader } from '../../src/cardreader/serial/serial-reader.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { peersAvailable } from '../support/peers.js';

const hasSocat = peersAvailable('socat');
const dirs: string[] = [];
const processes: ChildProcess[] = [];
const readers: SerialCardReader[] = [];

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

function collect(reader: SerialCardReader) {
  const events: CardEvent[] = [];
  reader.onEvent((e) => events.push(e));
  return { events, cards: () => events.flatMap((e) => (e.type === 'card' ? [e.raw] : [])) };
}

describe.runIf(hasSocat)('serial card reader on a socat pty pair', () => {
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
