import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/client/http-base.js';

const servers: Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

/** A server answering every request with `status` and `headers`; its base URL. */
async function answering(status: number, headers: Record<string, string> = {}): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end('{"error":{"code":"x","message":"answer"}}');
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What onContact was told for one GET against `baseUrl`. */
async function contactOf(baseUrl: string): Promise<{ ok: boolean; problem?: string }[]> {
  const told: { ok: boolean; problem?: string }[] = [];
  const client = new HttpClient({
    baseUrl,
    timeoutMs: 2_000,
    onContact: (ok, problem) => told.push(problem === undefined ? { ok } : { ok, problem }),
  });
  clients.push(client);
  await client.request({ method: 'GET', path: '/x' }).catch(() => undefined);
  return told;
}

describe('HttpClient onContact', () => {
  it('counts a 2xx and a 4xx as contact', async () => {
    expect(await contactOf(await answering(200))).toEqual([{ ok: true }]);
    expect(await contactOf(await answering(404))).toEqual([{ ok: true }]);
    expect(await contactOf(await answering(429, { 'retry-after': '1' }))).toEqual([{ ok: true }]);
  });

  it('counts a busy 503 that says when to come back as contact', async () => {
    expect(await contactOf(await answering(503, { 'retry-after': '2' }))).toEqual([{ ok: true }]);
  });

  it('counts a 5xx without Retry-After, and a refused connection, as no contact, naming why', async () => {
    const base = await answering(503);
    expect(await contactOf(base)).toEqual([{ ok: false, problem: `${base} answered HTTP 503` }]);
    const broken = await answering(500, { 'retry-after': '2' });
    expect(await contactOf(broken)).toEqual([{ ok: false, problem: `${broken} answered HTTP 500` }]);
    const closed = await answering(200);
    await new Promise((done) => servers.pop()?.close(done));
    const told = await contactOf(closed);
    expect(told).toHaveLength(1);
    expect(told[0]?.ok).toBe(false);
    expect(told[0]?.problem).toContain(`GET ${closed}/x`);
  });
});
