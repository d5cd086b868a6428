/**
 * The sign-in, consent and pairing pages driven by a real headless Chromium (Debian chromium
 * through playwright-core, flags of PEERS.md): a person completes the authorization code + PKCE
 * flow of a public client created through the API, and binds a device's pairing code; the app
 * side uses oauth4webapi. Under CI=true a missing chromium fails the run.
 */
import { type Server, createServer } from 'node:http';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, peersAvailable } from '../support/peers.js';
import {
  DEMO,
  type OAuthHarness,
  api,
  basic,
  formPost,
  insecure,
  startOAuthHarness,
  userToken,
} from './emulator-oauth-harness.js';

const haveChromium = peersAvailable('chromium');

describe.skipIf(!haveChromium)('OAuth pages in headless Chromium', () => {
  let h: OAuthHarness;
  let browser: Browser;
  let app: Server;
  let appUrl: string;

  beforeAll(async () => {
    h = await startOAuthHarness();
    browser = await launchChromium();
    // The "app": a loopback callback page, as a desktop app would listen on.
    const port = await freePort();
    app = createServer((_req, res) => res.end('<!doctype html><title>App</title><p>signed in</p>'));
    await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', resolve));
    appUrl = `http://localhost:${port}/callback`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.close(resolve));
    await h?.close();
  });

  it('authorization code + PKCE: sign-in, consent, redirect with code and state, tokens', async () => {
    const admin = await userToken(h.baseUrl, DEMO.admin);
    const created = await api(h.baseUrl, 'POST', '/v1/oauth-clients/public/', admin, {
      name: 'Browser App',
      external_description: 'Prints from the browser',
      redirect_urls: ['http://localhost/callback'],
      allowed_scopes: 'printing openid email',
    });
    const client: oauth.Client = { client_id: created.body.client_id };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(h.as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: appUrl,
      scope: 'printing openid email',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })) {
      url.searchParams.set(k, v);
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url.href);
    await page.getByText('Prints from the browser').waitFor();
    await page.getByLabel('Email').fill(DEMO.user.email);
    await page.getByLabel('Password').fill(DEMO.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Browser App wants to:').waitFor();
    await page.locator('li[data-scope="printing"]').waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((u) => u.href.startsWith(appUrl));
    const params = oauth.validateAuthResponse(h.as, client, new URL(page.url()), state);
    const response = await oauth.authorizationCodeGrantRequest(
      h.as,
      client,
      oauth.None(),
      params,
      appUrl,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(h.as, client, response, {
      requireIdToken: true,
    });
    expect(oauth.getValidatedIdTokenClaims(tokens)!['email']).toBe(DEMO.user.email);
    expect((await api(h.baseUrl, 'GET', '/sfapi/GetPrinter/', tokens.access_token)).status).toBe(200);
    await context.close();
  });

  it('pairing: auth_url sign-in, confirm the code, the device then gets its tokens', async () => {
    const pair = await formPost(
      `${h.baseUrl}/oauth/pair/`,
      { mode: 'device', scope: 'printing printing.connectors' },
      { authorization: basic(DEMO.client.id, DEMO.client.secret) },
    );
    const code = pair.body['pairing_code'] as string;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(pair.body['auth_url'] as string);
    await page.getByLabel('Email').fill(DEMO.admin.email);
    await page.getByLabel('Password').fill(DEMO.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByLabel('Pairing code').textContent()).toBe(code);
    await page.getByRole('button', { name: 'Connect device' }).click();
    expect(await page.getByRole('status').textContent()).toContain('is now connected');
    const device: oauth.Client = { client_id: DEMO.client.id };
    const response = await oauth.genericTokenEndpointRequest(
      h.as,
      device,
      oauth.ClientSecretBasic(DEMO.client.secret),
      'pairing_code',
      { pairing_code: code },
      insecure,
    );
    const tokens = await oauth.processGenericTokenEndpointResponse(h.as, device, response);
    expect(tokens.scope).toBe('printing printing.connectors');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    await context.close();
  });

  it('pairing page opened directly: sign in and connect in one step', async () => {
    const pair = await formPost(
      `${h.baseUrl}/oauth/pair/`,
      { mode: 'device', scope: 'printing' },
      { authorization: basic(DEMO.client.id, DEMO.client.secret) },
    );
    const code = pair.body['pairing_code'] as string;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${h.baseUrl}/oauth/authorize/pairing/?pairing_code=${code}`);
    expect(await page.getByLabel('Pairing code').textContent()).toBe(code);
    await page.getByLabel('Email').fill(DEMO.user.email);
    await page.getByLabel('Password').fill(DEMO.user.password);
    await page.getByRole('button', { name: 'Sign in and connect device' }).click();
    expect(await page.getByRole('status').textContent()).toContain('is now connected');
    await context.close();
  });
});
