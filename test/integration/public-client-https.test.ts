/**
 * Done-when of issue 9: a public web client, shaped like the service's open-source one, runs
 * unchanged against the demo over HTTPS. The demo (emulator, virtual printer, agent) sits behind
 * a TLS-terminating reverse proxy (--public-url, --trust-proxy): a person signs in with headless
 * Chromium (authorization code + PKCE, oauth4webapi on the app side), the app reads users/me
 * with its printing token, uploads with the real @azure/storage-blob SDK to the sasUri, prints
 * with string-typed options in `properties`, polls Status to 0, and rotates its refresh token.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AnonymousCredential,
  BlockBlobClient,
  newPipeline,
  type StoragePipelineOptions,
} from '@azure/storage-blob';
import * as oauth from 'oauth4webapi';
import { type Browser, chromium } from 'playwright-core';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoInfo } from '../../src/cli/demo-banner.js';
import { DemoStack } from '../../src/cli/demo-stack.js';
import { selfSignedTls, type TlsMaterial } from '../../src/cli/tls-files.js';
import { DEMO } from '../../src/config/demo-seed.js';
import { silentLogger } from '../../src/log/logger.js';
import { type HttpsProxy, startHttpsProxy } from '../support/https-proxy.js';
import { freePort, peersAvailable } from '../support/peers.js';

const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const haveChromium = peersAvailable('chromium');

describe.skipIf(!haveChromium)('a public web client over HTTPS, unchanged', () => {
  const dir = mkdtempSync(join(tmpdir(), 'public-client-'));
  let tls: TlsMaterial;
  let proxy: HttpsProxy;
  let stack: DemoStack;
  let info: DemoInfo;
  let browser: Browser;
  let app: Server;
  let appUrl: string;
  let dispatcher: Agent;
  let https: Record<symbol, unknown>;

  beforeAll(async () => {
    tls = await selfSignedTls(join(dir, 'proxy'));
    const proxyPort = await freePort();
    const publicUrl = `https://localhost:${proxyPort}`;
    stack = new DemoStack({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(dir, 'demo'),
      logger: silentLogger(),
      env: {},
      publicUrl,
      trustProxy: true,
    });
    info = await stack.start();
    const internal = stack.emulatorUrl() as string;
    proxy = await startHttpsProxy(internal, tls, proxyPort);
    dispatcher = new Agent({ connect: { ca: tls.cert } });
    // oauth4webapi over HTTPS that trusts the proxy's certificate (no "allow insecure" switch).
    https = {
      [oauth.customFetch]: (url: string, init: RequestInit) =>
        undiciFetch(url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]),
    };
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
    const appPort = await freePort();
    app = createServer((_req, res) => res.end('<!doctype html><title>App</title><p>signed in</p>'));
    await new Promise<void>((resolve) => app.listen(appPort, '127.0.0.1', resolve));
    appUrl = `http://localhost:${appPort}/callback`;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.close(resolve));
    await proxy?.close();
    await dispatcher?.close();
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
    const response = await undiciFetch(`${proxy.url}${path}`, {
      method: init.method ?? 'GET',
      dispatcher,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
    // biome-ignore lint/suspicious/noExplicitAny: each assertion below states the shape it expects.
    return { status: response.status, body: (await response.json()) as any };
  }

  it('signs in with PKCE in Chromium, reads users/me, uploads with the Azure SDK, prints, and rotates the refresh token', async () => {
    const issuer = new URL(proxy.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, https));
    expect(as.token_endpoint).toBe(`${proxy.url}/oauth/access_token/`);

    // An organization admin registers the public client, as the web client's docs ask.
    const admin = await oauth.processGenericTokenEndpointResponse(
      as,
      { client_id: DEMO.client.id },
      await oauth.genericTokenEndpointRequest(
        as,
        { client_id: DEMO.client.id },
        oauth.ClientSecretBasic(DEMO.client.secret),
        'password',
        { username: DEMO.admin.email, password: DEMO.admin.password, scope: 'account' },
        https,
      ),
    );
    const created = await call('/v1/oauth-clients/public/', admin.access_token, {
      method: 'POST',
      body: {
        name: 'Web Print',
        external_description: 'Prints from the browser',
        redirect_urls: ['http://localhost/callback'],
        allowed_scopes: 'printing',
      },
    });
    expect(created.status).toBe(201);
    const client: oauth.Client = { client_id: created.body.client_id };

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: appUrl,
      scope: 'printing',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(url.href);
    await page.getByLabel('Email').fill(DEMO.user.email);
    await page.getByLabel('Password').fill(DEMO.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((u) => u.href.startsWith(appUrl));
    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
    await context.close();
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, appUrl, verifier, https),
    );
    expect(tokens.scope).toBe('printing');
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const me = await call('/v1/users/me', tokens.access_token);
    expect(me).toMatchObject({
      status: 200,
      body: { email: DEMO.user.email, display_name: 'Alice Example' },
    });

    const upload = await call('/sfapi/PrepareUpload/', tokens.access_token);
    expect(upload.body.sasUri.startsWith(`${proxy.url}/storage/uploads/`)).toBe(true);
    const sample = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'sample.pdf'));
    const pipelineOptions = { tlsOptions: { ca: tls.cert } } as StoragePipelineOptions;
    const blob = new BlockBlobClient(
      upload.body.sasUri,
      newPipeline(new AnonymousCredential(), pipelineOptions),
    );
    await blob.uploadData(sample, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });

    const print = await call('/sfapi/Print/', tokens.access_token, {
      method: 'POST',
      body: {
        fileid: upload.body.fileid,
        printerid: info.printerId,
        type: 'pdf',
        alias: 'sample.pdf',
        properties: { copies: '1', color: 'false', duplex: 'false', orientation: '1' },
      },
    });
    expect(print.status).toBe(200);
    let status = await call(`/sfapi/Status/?id=${print.body.jobid}`, tokens.access_token);
    for (let i = 0; i < 150 && status.body.jobstatus !== 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await call(`/sfapi/Status/?id=${print.body.jobid}`, tokens.access_token);
    }
    expect(status.body).toMatchObject({ jobstatus: 0, jobpagestotal: 2 });
    const printed = readdirSync(info.printedDir).map((f) => readFileSync(join(info.printedDir, f)));
    expect(printed.some((bytes) => bytes.equals(sample))).toBe(true);

    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, https),
    );
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await call('/v1/users/me/', rotated.access_token)).body.email).toBe(DEMO.user.email);
  }, 120_000);
});
