import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../../../src/agent/control/agent-status.js';
import { ControlServer, hostAllowed } from '../../../../src/agent/control/control-server.js';
import { silentLogger } from '../../../../src/log/logger.js';

/** GET with an explicit Host header (fetch does not let a caller set it). */
function get(
  url: string,
  host: string | undefined,
  path = '/status',
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path, setHost: host === undefined, headers: host ? { host } : {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('hostAllowed', () => {
  it.each([
    ['localhost', '127.0.0.1', true],
    ['localhost:9631', '127.0.0.1', true],
    ['LOCALHOST:9631', '127.0.0.1', true],
    ['127.0.0.1:9631', '127.0.0.1', true],
    ['127.0.0.1', '127.0.0.1', false],
    ['127.0.0.1:80', '127.0.0.1', false],
    ['attacker.example:9631', '127.0.0.1', false],
    ['attacker.example', '127.0.0.1', false],
    ['localhost.attacker.example:9631', '127.0.0.1', false],
    ['[::1]:9631', '::1', true],
    ['[::1]:9631', '127.0.0.1', false],
    ['10.0.0.5:9631', '0.0.0.0', true],
    ['printhost.example:9631', '0.0.0.0', false],
    ['[fe80::1]:9631', '::', true],
  ])('Host %s on a server bound to %s: %s', (host, address, allowed) =>
    expect(hostAllowed(host, { address, port: 9631 })).toBe(allowed),
  );
});

describe('the control server and the Host header', () => {
  const server = new ControlServer({
    bind: '127.0.0.1',
    port: 0,
    status: () => ({ pid: process.pid }) as unknown as AgentStatus,
    metrics: { render: async () => '', contentType: 'text/plain' },
    logger: silentLogger(),
  });
  let url: string;

  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());

  it('answers its own address and localhost, with the port', async () => {
    const port = new URL(url).port;
    expect((await get(url, `127.0.0.1:${port}`)).status).toBe(200);
    expect((await get(url, `localhost:${port}`)).status).toBe(200);
    expect((await get(url, 'localhost')).status).toBe(200);
  });

  it('refuses another name with 421 (a DNS-rebinding page cannot read /status)', async () => {
    const port = new URL(url).port;
    for (const path of ['/status', '/metrics', '/readyz', '/healthz']) {
      const answer = await get(url, `rebind.attacker.example:${port}`, path);
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.body)).toEqual({
        error: 'misdirected_request',
        message: `Host must be this control API's address (${url}) or localhost:${port}`,
      });
    }
  });
});
