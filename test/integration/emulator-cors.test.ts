/**
 * CORS with credentials only for the origins of registered redirect URLs (an http://localhost
 * one: any port) and configured origins: real preflight requests, then a real headless
 * Chromium calling the emulator cross-origin from an allowed and from a refused page.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { peersAvailable } from '../support/peers.js';
import { call, type Harness, passwordToken, startHarness } from './emulator-harness.js';

const EXTRA = 'https://lab-dashboard.example.net';

describe('CORS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ corsOrigins: [EXTRA] });
  });
  afterAll(async () => h?.close());

  async function preflight(origin: string) {
    const res = await request(`${h.baseUrl}/v1/users/me`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    await res.body.dump();
    return {
      status: res.statusCode,
      origin: res.headers['access-control-allow-origin'],
      credentials: res.headers['access-control-allow-credentials'],
    };
  }

  it('answers a preflight from an unknown origin without CORS headers', async () => {
    // Not a CORS preflight the emulator answers: it falls through to routing (no OPTIONS route).
    expect(await preflight('https://evil.example.com')).toEqual({
      status: 404,
      origin: undefined,
      credentials: undefined,
    });
    expect(await preflight('http://127.0.0.1:5173')).toMatchObject({ origin: undefined });
    expect(await preflight('null')).toMatchObject({ origin: undefined });
  });

  it('allows the demo client redirect origin http://localhost on any port, and a configured origin', async () => {
    for (const origin of ['http://localhost', 'http://localhost:5173', EXTRA]) {
      expect(await preflight(origin)).toEqual({ status: 204, origin, credentials: 'true' });
    }
  });

  it('allows the origin of a newly registered client at once, and not after it is deleted', async () => {
    const origin = 'https://print-app.example.org';
    expect((await preflight(origin)).origin).toBeUndefined();
    const admin = await passwordToken(h.baseUrl, 'account');
    const created = await call(h.baseUrl, 'POST', '/v1/oauth-clients/public/', admin, {
      name: 'Print App',
      external_description: 'browser app',
      redirect_urls: [`${origin}/oauth/callback`],
      allowed_scopes: 'printing',
    });
    expect(created.status).toBe(201);
    expect(await preflight(origin)).toEqual({ status: 204, origin, credentials: 'true' });
    const id = created.body.client_id as string;
    expect((await call(h.baseUrl, 'DELETE', `/v1/oauth-clients/${id}/`, admin)).status).toBe(204);
    expect((await preflight(origin)).origin).toBeUndefined();
  });
});

const haveChromium = peersAvailable('chromium');

describe.skipIf(!haveChromium)('CORS in headless Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let app: Server;
  let port: number;

  beforeAll(async () => {
    h = await startHarness();
    browser = await launchChromium();
    app = createServer((_req, res) => res.end('<!doctype html><title>App</title>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    port = (app.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.close(resolve));
    await h?.close();
  });

  /** From a page at `pageOrigin`, GET users/me with a bearer token; the e-mail or the error name. */
  async function fetchFrom(pageOrigin: string, token: string): Promise<string> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${pageOrigin}/`);
      return await page.evaluate(
        async ({ url, bearer }) => {
          try {
            const res = await fetch(url, {
              headers: { authorization: `Bearer ${bearer}` },
              credentials: 'include',
            });
            return ((await res.json()) as { email: string }).email;
          } catch (error) {
            return (error as Error).name;
          }
        },
        { url: `${h.baseUrl}/v1/users/me`, bearer: token },
      );
    } finally {
      await context.close();
    }
  }

  it('lets a page at a registered redirect origin call the API, and refuses another origin', async () => {
    const token = await passwordToken(h.baseUrl, 'printing');
    expect(await fetchFrom(`http://localhost:${port}`, token)).toBe('admin@demo.test');
    expect(await fetchFrom(`http://127.0.0.1:${port}`, token)).toBe('TypeError');
  });
});
