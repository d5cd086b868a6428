/**
 * The fault proxy must deliver every byte it took from a client that went away: the kill proofs
 * count a document the agent's kernel had fully sent as whole at the printer. Held requests wait
 * at the proxy until released, then arrive whole and in order.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../support/fault-proxy.js';

const PAYLOAD_BYTES = 8 * 1024 * 1024;

describe('FaultProxy', () => {
  let target: Server | undefined;
  let proxy: FaultProxy | undefined;

  afterEach(async () => {
    await proxy?.close();
    await new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve()));
  });

  it('delivers all a closed client sent to a target that reads slowly', async () => {
    let received = 0;
    let accepted: (socket: Socket) => void = () => {};
    const arrived = new Promise<Socket>((resolve) => (accepted = resolve));
    target = createServer((socket) => {
      socket.pause();
      accepted(socket);
    });
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    const address = target.address();
    proxy = new FaultProxy(typeof address === 'object' && address ? address.port : 0);
    await proxy.start();

    const client = connect(proxy.port, '127.0.0.1');
    await once(client, 'connect');
    const payload = Buffer.alloc(PAYLOAD_BYTES, 0x61);
    await new Promise<void>((resolve) => client.end(payload, () => resolve()));
    await once(client, 'close');

    const socket = await arrived;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.resume();
    await once(socket, 'end');
    expect(received).toBe(PAYLOAD_BYTES);
  });

  it('holds matching requests until release, then sends them on in order', async () => {
    const seen: string[] = [];
    target = createServer((socket) => {
      socket.setEncoding('latin1');
      socket.on('data', (text: string) => {
        seen.push(text);
        socket.write(`ok ${text}`);
      });
    });
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    const address = target.address();
    proxy = new FaultProxy(typeof address === 'object' && address ? address.port : 0);
    await proxy.start();
    proxy.hold(/^HOLD/);
    const held = connect(proxy.port, '127.0.0.1').setEncoding('latin1');
    const free = connect(proxy.port, '127.0.0.1').setEncoding('latin1');
    await Promise.all([once(held, 'connect'), once(free, 'connect')]);
    held.write('HOLD one;');
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.write('then two;');
    free.write('PASS three;');
    expect(await once(free, 'data')).toEqual(['ok PASS three;']);
    expect(seen).toEqual(['PASS three;']);
    proxy.release();
    let answer = '';
    while (!answer.endsWith('two;')) {
      answer += ((await once(held, 'data')) as string[])[0];
    }
    expect(answer.replaceAll('ok ', '')).toBe('HOLD one;then two;');
    expect(seen.slice(1).join('')).toBe('HOLD one;then two;');
    held.destroy();
    free.destroy();
  });
});
