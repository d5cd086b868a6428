/**
 * The outbound address policy at connect time: its DNS lookup (which drops refused addresses)
 * and its undici connect function (which refuses an IP-literal host before connecting and checks
 * the connected peer once more), against a real TCP listener on the loopback address and the
 * system resolver's `localhost`. The table of refused ranges is pinned by
 * outbound-address-policy.test.ts.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OutboundAddressPolicy,
  OutboundAddressRefused,
} from '../../../../src/emulator/http/outbound-address-policy.js';

const RULE =
  'the emulator connects only to public addresses unless the allow-list (--allow-outbound) names the range';
const LOOPBACK_REFUSED = `127.0.0.1 is a loopback address; ${RULE}`;
/** Both loopback forms, so `localhost` is allowed whichever addresses the resolver gives. */
const LOOPBACK = ['127.0.0.0/8', '::1'];

type LookupAnswer = { error: Error | null; address: string | LookupAddress[]; family?: number };

function lookupWith(
  policy: OutboundAddressPolicy,
  host: string,
  options: LookupOptions,
): Promise<LookupAnswer> {
  return new Promise((resolve) => {
    policy.lookup(host, options, (error, address, family) =>
      resolve({ error, address, ...(family === undefined ? {} : { family }) }),
    );
  });
}

type ConnectAnswer = { error: Error | null; socket: Socket | null };

function connectWith(policy: OutboundAddressPolicy, hostname: string, port: number): Promise<ConnectAnswer> {
  const connect = policy.connector();
  return new Promise((resolve) => {
    connect(
      { hostname, host: `${hostname}:${port}`, port: String(port), protocol: 'http:' },
      (error, socket) => resolve({ error, socket: socket as Socket | null }),
    );
  });
}

/** A policy whose lookup lets every address through, as a resolver that changed its answer would. */
class LeakyLookupPolicy extends OutboundAddressPolicy {
  override readonly lookup = systemLookup as unknown as OutboundAddressPolicy['lookup'];
}

let server: Server;
let port: number;
const accepted: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('OutboundAddressPolicy.lookup', () => {
  it('refuses a name whose every address is refused, naming the name and the first address', async () => {
    const answer = await lookupWith(new OutboundAddressPolicy(), 'localhost', {});
    expect(answer.error).toBeInstanceOf(OutboundAddressRefused);
    expect((answer.error as OutboundAddressRefused).code).toBe('E_OUTBOUND_ADDRESS_REFUSED');
    expect(answer.error?.message).toMatch(/^localhost: (127\.0\.0\.1|::1) is a loopback address; /);
    expect(answer.error?.message.endsWith(RULE)).toBe(true);
    expect(answer.address).toBe('');
  });

  it('answers the first allowed address and its family, or every allowed one when all is asked', async () => {
    const policy = new OutboundAddressPolicy(['127.0.0.1']);
    const one = await lookupWith(policy, 'localhost', { family: 4 });
    expect(one).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    const all = await lookupWith(policy, 'localhost', { all: true });
    expect(all).toEqual({ error: null, address: [{ address: '127.0.0.1', family: 4 }] });
  });

  it('passes a resolver error through unchanged', async () => {
    const answer = await lookupWith(new OutboundAddressPolicy(LOOPBACK), 'no-such-host.invalid', {});
    expect(answer.error).not.toBeInstanceOf(OutboundAddressRefused);
    expect((answer.error as NodeJS.ErrnoException | null)?.code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
    expect(answer.address).toBe('');
  });
});

describe('OutboundAddressPolicy.connector', () => {
  it('refuses an IP-literal host before connecting', async () => {
    const before = accepted.length;
    const answer = await connectWith(new OutboundAddressPolicy(), '127.0.0.1', port);
    expect(answer.socket).toBeNull();
    expect(answer.error).toBeInstanceOf(OutboundAddressRefused);
    expect(answer.error?.message).toBe(LOOPBACK_REFUSED);
    expect(accepted.length).toBe(before);
  });

  it('refuses a bracketed IPv6 literal host before connecting', async () => {
    const answer = await connectWith(new OutboundAddressPolicy(), '[::1]', port);
    expect(answer.error).toBeInstanceOf(OutboundAddressRefused);
    expect(answer.error?.message).toBe(`::1 is a loopback address; ${RULE}`);
  });

  it('refuses a name whose addresses are all refused, through its lookup', async () => {
    const answer = await connectWith(new OutboundAddressPolicy(), 'localhost', port);
    expect(answer.socket).toBeNull();
    expect(answer.error).toBeInstanceOf(OutboundAddressRefused);
    expect(answer.error?.message).toMatch(/^localhost: (127\.0\.0\.1|::1) is a loopback address; /);
  });

  it('connects to an allowed address, by literal and by name', async () => {
    const policy = new OutboundAddressPolicy(LOOPBACK);
    for (const host of ['127.0.0.1', 'localhost']) {
      const answer = await connectWith(policy, host, port);
      expect(answer.error).toBeNull();
      expect(answer.socket?.remoteAddress).toMatch(/^(127\.0\.0\.1|::1)$/);
      expect(answer.socket?.remotePort).toBe(port);
      answer.socket?.destroy();
    }
  });

  it('checks the connected peer again and closes a connection to a refused address', async () => {
    const answer = await connectWith(new LeakyLookupPolicy(), 'localhost', port);
    expect(answer.socket).toBeNull();
    expect(answer.error).toBeInstanceOf(OutboundAddressRefused);
    expect(answer.error?.message).toMatch(/^(127\.0\.0\.1|::1) is a loopback address; /);
    const peer = accepted.at(-1);
    if (!peer) throw new Error('the leaky lookup made no connection');
    if (!peer.closed) await new Promise((resolve) => peer.once('close', resolve));
    expect(peer.closed).toBe(true);
  });

  it('passes a connection error through', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const answer = await connectWith(new OutboundAddressPolicy(LOOPBACK), '127.0.0.1', freePort);
    expect(answer.socket).toBeNull();
    expect(answer.error).not.toBeInstanceOf(OutboundAddressRefused);
    expect((answer.error as NodeJS.ErrnoException | null)?.code).toBe('ECONNREFUSED');
  });
});
