import { afterEach, describe, expect, it } from 'vitest';
import type { CardEvent } from '../../src/cardreader/card-reader.js';
import { sendSwipe, SocketCardReader } from '../../src/cardreader/socket/socket-reader.js';
import { ManualClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';

const readers: SocketCardReader[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.stop()));
});

describe('socket card reader over real TCP', () => {
  it('takes swipes and removals from printrelay swipe and answers errors', async () => {
    const clock = new ManualClock(1000);
    const reader = new SocketCardReader('socket://127.0.0.1:0', { logger: silentLogger(), clock });
    readers.push(reader);
    const events: CardEvent[] = [];
    reader.onEvent((e) => events.push(e));
    await reader.start();
    const uri = `socket://127.0.0.1:${reader.port}`;
    await sendSwipe(uri, '04A1B2C3');
    await sendSwipe(uri, 'swipe 1234');
    await sendSwipe(uri, 'remove');
    await expect(sendSwipe(uri, 'two words here')).rejects.toThrow('swipe: send "<card>"');
    expect(events).toEqual([
      { type: 'connected', at: 1000 },
      { type: 'card', raw: '04A1B2C3', at: 1000 },
      { type: 'card', raw: '1234', at: 1000 },
      { type: 'removed', at: 1000 },
    ]);
  });

  it('fails clearly when nothing listens and refuses bad URIs', async () => {
    const reader = new SocketCardReader('socket://127.0.0.1:0', {
      logger: silentLogger(),
      clock: new ManualClock(),
    });
    readers.push(reader);
    await reader.start();
    const port = reader.port;
    await reader.stop();
    await expect(sendSwipe(`socket://127.0.0.1:${port}`, '1234')).rejects.toThrow(/ECONNREFUSED/);
    const bad = new SocketCardReader('socket://nohost', { logger: silentLogger(), clock: new ManualClock() });
    await expect(bad.start()).rejects.toThrow(
      'reader: "socket://nohost" must look like socket://127.0.0.1:4711',
    );
    await expect(sendSwipe('socket://host-without-port', '1')).rejects.toThrow('must look like socket://');
  });
});
