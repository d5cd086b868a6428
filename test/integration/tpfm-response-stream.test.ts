import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchStreamed } from '../../src/client/tpfm-response-stream.js';
import { Agent } from '../../src/client/undici-core.js';

/** Requests the server saw, by path, with their response (for the tests to drive). */
const waiting = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
let server: Server;
let origin: string;
const dispatcher = new Agent();

function route(path: string): Promise<{ req: IncomingMessage; res: ServerResponse }> {
  return new Promise((resolve) => waiting.set(path, (req, res) => resolve({ req, res })));
}

const get = (path: string, extra: { signal?: AbortSignal; headersTimeout?: number } = {}) =>
  dispatchStreamed(
    dispatcher,
    { origin, path, method: 'GET', headersTimeout: extra.headersTimeout ?? 10_000, bodyTimeout: 0 },
    extra.signal,
  );

beforeAll(async () => {
  server = createServer((req, res) => waiting.get(req.url ?? '')?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await dispatcher.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('dispatchStreamed against a real chunked HTTP server', () => {
  it('hands back the status and headers first, then each chunk as it comes, then the trailers', async () => {
    const served = route('/chunks');
    const response = get('/chunks');
    const { res } = await served;
    res.writeHead(200, { 'X-FMP-ProcId': '7', Trailer: 'X-FMP-Return' });
    res.write('1/2\r\n');
    const started = await response;
    expect(started.statusCode).toBe(200);
    expect(started.headers['x-fmp-procid']).toBe('7');
    const chunks = started.body[Symbol.asyncIterator]();
    expect(String((await chunks.next()).value)).toBe('1/2\r\n');
    expect(started.trailers).toEqual({});
    res.write('2/2\r\n');
    expect(String((await chunks.next()).value)).toBe('2/2\r\n');
    res.addTrailers({ 'X-FMP-Return': '0' });
    res.end();
    expect((await chunks.next()).done).toBe(true);
    expect(started.trailers['x-fmp-return']).toBe('0');
  });

  it('reads a large body whole and in order through pauses and resumes', async () => {
    const body = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const served = route('/large');
    const response = get('/large');
    const { res } = await served;
    res.end(body);
    const received: Buffer[] = [];
    for await (const chunk of (await response).body) received.push(chunk);
    expect(Buffer.concat(received).equals(body)).toBe(true);
  });

  it('destroy() aborts the request: the server sees the connection close', async () => {
    const served = route('/destroy');
    const response = get('/destroy');
    const { req, res } = await served;
    res.writeHead(200);
    res.write('1/9\r\n');
    const started = await response;
    const closed = once(req.socket, 'close');
    started.body.destroy();
    await closed;
    await expect(started.body.text()).resolves.toBe('');
  });

  it('an aborted signal ends a running body with an error and closes the connection', async () => {
    const served = route('/abort-body');
    const controller = new AbortController();
    const response = get('/abort-body', { signal: controller.signal });
    const { req, res } = await served;
    res.writeHead(200);
    res.write('1/9\r\n');
    const started = await response;
    const closed = once(req.socket, 'close');
    controller.abort(new Error('session ended'));
    await expect(started.body.text()).rejects.toThrow('session ended');
    await closed;
  });

  it('an aborted signal before the answer rejects the request', async () => {
    const served = route('/abort-head');
    const controller = new AbortController();
    const response = get('/abort-head', { signal: controller.signal });
    const { req } = await served;
    const closed = once(req.socket, 'close');
    controller.abort(new Error('session ended'));
    await expect(response).rejects.toThrow('session ended');
    await closed;
  });

  it('a signal aborted before the request is sent rejects it', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already over'));
    await expect(get('/never', { signal: controller.signal })).rejects.toThrow('already over');
  });

  it('a body cut off by the server fails the iteration', async () => {
    const served = route('/cut');
    const response = get('/cut');
    const { res } = await served;
    res.writeHead(200);
    res.write('1/9\r\n');
    const started = await response;
    res.socket?.destroy();
    await expect(started.body.text()).rejects.toThrow();
  });

  it('no answer within the headers timeout rejects with undici’s timeout error', async () => {
    const served = route('/silent');
    const response = get('/silent', { headersTimeout: 50 });
    await served;
    await expect(response).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  });
});
