import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ServerMessage } from '../../src/protocol/connector-channel.js';
import { call, type Harness, passwordToken, registration, startHarness } from './emulator-harness.js';

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ heartbeatS: 1 });
  token = await passwordToken(h.baseUrl, 'printing printing.connectors');
});
afterAll(async () => {
  await h.close();
});

describe('the emulator app', () => {
  it('listens on a free port and answers with its base URL', () => {
    expect(h.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('matches paths in any letter case, with or without the trailing slash', async () => {
    for (const path of [
      '/printing/v1/printers/',
      '/printing/v1/printers',
      '/PRINTING/V1/Printers',
      '/Printing/v1/printers/',
    ]) {
      expect((await call(h.baseUrl, 'GET', path, token)).status).toBe(200);
    }
    const token2 = await request(`${h.baseUrl}/OAUTH/ACCESS_TOKEN`, { method: 'POST' });
    expect(token2.statusCode).toBe(400);
    await token2.body.dump();
  });

  it('answers CORS with credentials for a registered redirect origin only', async () => {
    // The demo client's redirect URL http://localhost/callback: http://localhost on any port.
    const allowed = 'http://localhost:5173';
    const preflight = await request(`${h.baseUrl}/printing/v1/printers/`, {
      method: 'OPTIONS',
      headers: {
        origin: allowed,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(allowed);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    await preflight.body.dump();
    const res = await call(h.baseUrl, 'GET', '/printing/v1/printers/', token, undefined, { origin: allowed });
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    const other = await call(h.baseUrl, 'GET', '/printing/v1/printers/', token, undefined, {
      origin: 'http://app.example',
    });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('maps errors to JSON bodies: unknown routes, bad JSON', async () => {
    const missing = await call(h.baseUrl, 'GET', '/no/such/thing', undefined);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      error: 'not_found',
      message: expect.stringContaining('/no/such/thing'),
    });
    const res = await request(`${h.baseUrl}/connector/v1/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"serial_string": ',
    });
    expect(res.statusCode).toBe(400);
    expect(await res.body.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('pings the channel every heartbeat and keeps it open while pongs come back', async () => {
    await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('APP-1'));
    const socket = new WebSocket(`${h.baseUrl.replace('http', 'ws')}/connector/v1/channel`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const pings: number[] = [];
    const threePings = new Promise<void>((resolve) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as ServerMessage;
        if (message.type !== 'ping') return;
        pings.push(message.t);
        socket.send(JSON.stringify({ type: 'pong', t: message.t }));
        if (pings.length === 3) resolve();
      });
    });
    await threePings;
    expect(pings.every((t) => t === h.clock.now())).toBe(true);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });

  it('terminates a channel that stops answering', async () => {
    const socket = new WebSocket(`${h.baseUrl.replace('http', 'ws')}/connector/v1/channel`, {
      headers: { authorization: `Bearer ${token}` },
      autoPong: false,
    });
    const code = await new Promise<number>((resolve) => socket.on('close', (c) => resolve(c)));
    expect(code).toBe(1006);
  });
});

describe('closing', () => {
  it('answers a waiting long poll and closes promptly', async () => {
    const own = await startHarness();
    const bearer = await passwordToken(own.baseUrl, 'printing.connectors');
    await call(own.baseUrl, 'POST', '/connector/v1/register', bearer, registration('CLOSE-1'));
    const poll = call(own.baseUrl, 'GET', '/connector/v1/jobs?wait=120', bearer);
    await expect.poll(() => own.emulator.app.emulator.hub['waiters'].size).toBe(1);
    await own.close();
    const res = await poll;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jobs: [] });
  });
});

describe('request logging', () => {
  it('logs method, path and status but never the query string', async () => {
    const { createLogger } = await import('../../src/log/logger.js');
    const { createEmulator } = await import('../../src/emulator/app.js');
    const { defaultEmulatorSeed } = await import('../../src/config/demo-seed.js');
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const emulator = await createEmulator({
      db: ':memory:',
      dataDir: h.dataDir,
      seed: defaultEmulatorSeed(),
      logger,
    });
    try {
      const base = await emulator.listen('127.0.0.1', 0);
      await call(base, 'GET', '/printing/v1/printers/?limit=5&sig=very-secret-value', undefined);
    } finally {
      await emulator.close();
    }
    const completed = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request completed');
    expect(completed).toMatchObject({ method: 'GET', path: '/printing/v1/printers/', status: 401 });
    expect(lines.join('\n')).not.toContain('very-secret-value');
  });
});
