/**
 * The IPP connection pool over real TCP sockets: a released connection is given to the next
 * exchange, an idle one is closed when its idle time is over (also after it was reused), one the
 * printer closed while idle leaves the pool before anything is written on it, and a third
 * exchange waits for one of the two connections to come free.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IppConnection } from '../../src/printing/ipp/ipp-connection.js';
import { IppConnectionPool } from '../../src/printing/ipp/ipp-connection-pool.js';
import { parseIppTarget } from '../../src/printing/ipp/ipp-target.js';

let server: Server;
let port = 0;
/** The server's side of each connection, in the order they came. */
const accepted: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(() => {
  for (const socket of accepted) socket.destroy();
  server.close();
});

/** The connection (and whether it was reused) the pool gives the next exchange. */
function take(pool: IppConnectionPool): Promise<{ connection: IppConnection; reused: boolean }> {
  return new Promise((resolve) => {
    pool.acquire((connection, reused) => resolve({ connection, reused }));
  });
}

function newPool(idleMs: number): IppConnectionPool {
  return new IppConnectionPool(parseIppTarget(`ipp://127.0.0.1:${port}/ipp/print`), {
    maxConnections: 2,
    idleMs,
  });
}

describe('IppConnectionPool', () => {
  it('gives a released connection to the next exchange, and closes it once idle long enough', async () => {
    const pool = newPool(60);
    const first = await take(pool);
    await first.connection.ready;
    expect(first.reused).toBe(false);
    pool.release(first.connection, true);
    const again = await take(pool);
    expect(again).toEqual({ connection: first.connection, reused: true });
    // Released a second time: the same idle timer, refreshed, ends it.
    pool.release(again.connection, true);
    await once(first.connection.socket, 'close');
    const fresh = await take(pool);
    expect(fresh.reused).toBe(false);
    expect(fresh.connection).not.toBe(first.connection);
    pool.close();
  });

  it('drops an idle connection the printer closed, before anything is written on it', async () => {
    const pool = newPool(60_000);
    const before = accepted.length;
    const first = await take(pool);
    await first.connection.ready;
    pool.release(first.connection, true);
    while (accepted.length === before) await once(server, 'connection');
    accepted[before]?.end();
    await once(first.connection.socket, 'close');
    const next = await take(pool);
    expect(next.reused).toBe(false);
    expect(next.connection).not.toBe(first.connection);
    pool.close();
  });

  it('makes a third exchange wait for one of two connections, and gives it a kept one', async () => {
    const pool = newPool(60_000);
    const one = await take(pool);
    const two = await take(pool);
    let third: IppConnection | undefined;
    pool.acquire((connection) => {
      third = connection;
    });
    expect(third).toBeUndefined();
    pool.release(two.connection, true);
    expect(third).toBe(two.connection);
    // A connection that cannot be kept makes room for a new one.
    let fourth: IppConnection | undefined;
    pool.acquire((connection) => {
      fourth = connection;
    });
    pool.release(one.connection, false);
    expect(one.connection.closed).toBe(true);
    expect(fourth).toBeDefined();
    expect(fourth).not.toBe(one.connection);
    pool.close();
  });
});
