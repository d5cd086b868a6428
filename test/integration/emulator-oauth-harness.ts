/**
 * Harness of the OAuth server tests: an emulator on a free port whose public URL (and so the
 * tokens' issuer) is its own address, as an app developer runs it, the demo seed plus a few test
 * clients, a ManualClock, and oauth4webapi's view of the server from discovery. `close()` stops
 * the emulator and removes the temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { request } from 'undici';
import { DEMO, defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import type { EmulatorSeed } from '../../src/config/emulator-seed-schema.js';
import { type Emulator, createEmulator } from '../../src/emulator/app.js';
import type { EmulatorContext } from '../../src/emulator/context.js';
import { ManualClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { freePort } from '../support/peers.js';
import { checkRequestAgainstOpenApi } from '../support/openapi-requests.js';
import { checkResponseAgainstOpenApi } from '../support/openapi-responses.js';

export { DEMO };

type SeedClient = EmulatorSeed['organizations'][number]['oauth_clients'][number];

/** Seeded test clients (protected, like the service's own clients). */
export const TEST_CLIENTS = {
  multiPair: { id: 'multi-pair', secret: 'multi-pair-secret' },
  noPair: { id: 'no-pair', secret: 'no-pair-secret' },
  machine: { id: 'machine', secret: 'machine-secret' },
  /** Multi-tenant password client of the other organization: tokens for users of both. */
  login: { id: 'test-login', secret: 'test-login-secret' },
  /** Single-tenant client an organization registered itself (not protected): its own users only. */
  tenant: { id: 'tenant-app', secret: 'tenant-app-secret' },
} as const;

function seedClient(
  id: string,
  secret: string,
  grants: SeedClient['grant_types'],
  tenant: 'single' | 'multi',
  isProtected = true,
): SeedClient {
  return {
    client_id: id,
    client_secret: secret,
    name: id,
    external_description: '',
    client_type: 'confidential',
    grant_types: grants,
    redirect_urls: [],
    allowed_scopes: [],
    tenant_mode: tenant,
    protected: isProtected,
  };
}

/**
 * The demo seed plus the test clients of TEST_CLIENTS: the multi-tenant ones belong to the other
 * organization (so the demo organization owns no multi-tenant client), the rest to the demo one.
 */
export function oauthTestSeed(): EmulatorSeed {
  const seed = defaultEmulatorSeed();
  const { multiPair, noPair, machine, login, tenant } = TEST_CLIENTS;
  seed.organizations[0]!.oauth_clients.push(
    seedClient(tenant.id, tenant.secret, ['password', 'refresh_token', 'pairing_code'], 'single', false),
    seedClient(noPair.id, noPair.secret, ['password'], 'single'),
    seedClient(machine.id, machine.secret, ['client_credentials'], 'single'),
  );
  seed.organizations[1]!.oauth_clients.push(
    seedClient(multiPair.id, multiPair.secret, ['pairing_code'], 'multi'),
    seedClient(login.id, login.secret, ['password', 'refresh_token'], 'multi'),
  );
  return seed;
}

/** A running emulator for OAuth tests. */
export interface OAuthHarness {
  emulator: Emulator;
  context: EmulatorContext;
  baseUrl: string;
  clock: ManualClock;
  /** The authorization server as oauth4webapi discovered it. */
  as: oauth.AuthorizationServer;
  close(): Promise<void>;
}

/** Starts the emulator with its public URL on a free port and runs discovery against it. */
export async function startOAuthHarness(seed: EmulatorSeed = oauthTestSeed()): Promise<OAuthHarness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'emulator-oauth-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(Date.now());
  const emulator = await createEmulator({
    db: ':memory:',
    dataDir,
    seed,
    logger: silentLogger(),
    clock,
    publicUrl: baseUrl,
  });
  await emulator.listen('127.0.0.1', port);
  const issuer = new URL(baseUrl);
  const response = await oauth.discoveryRequest(issuer, {
    algorithm: 'oidc',
    [oauth.allowInsecureRequests]: true,
  });
  const as = await oauth.processDiscoveryResponse(issuer, response);
  return {
    emulator,
    context: emulator.app.emulator,
    baseUrl,
    clock,
    as,
    close: async () => {
      await emulator.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** oauth4webapi options for plain-http loopback calls. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** Basic credentials header value. */
export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** A form POST; the JSON answer parsed. */
export async function formPost(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
  options: { offContract?: boolean } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.body.text();
  const parsed = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  const target = new URL(url);
  const sent = {
    method: 'POST',
    path: `${target.pathname}${target.search}`,
    contentType: 'application/x-www-form-urlencoded',
    body: form,
  };
  await checkRequestAgainstOpenApi(target.origin, sent, res.statusCode, options);
  await checkResponseAgainstOpenApi(target.origin, 'POST', target.pathname, res.statusCode, parsed);
  return { status: res.statusCode, headers: res.headers, body: parsed ?? {} };
}

/** The OAuth error code oauth4webapi raised for an error response, or the thrown value. */
export async function oauthErrorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return error.error;
    throw error;
  }
  throw new Error('expected an OAuth error response');
}

/** A page answer of FormBrowser. */
export interface PageAnswer {
  status: number;
  location: string | undefined;
  html: string;
}

/**
 * A minimal cookie-keeping HTTP "browser" for the server-rendered pages: GET a URL, submit the
 * page's form with some fields filled (hidden inputs carried as a browser would). Redirects are
 * not followed, so tests see each Location.
 */
export class FormBrowser {
  private cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  /** GET a path or absolute URL. */
  async get(url: string): Promise<PageAnswer> {
    return this.send(url, 'GET');
  }

  /** Submits the first form of `page` (hidden inputs plus `fields`; a field set to null is dropped). */
  async submit(page: string, fields: Record<string, string | null>): Promise<PageAnswer> {
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error('the page has no form');
    const form: Record<string, string> = {};
    for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      form[decodeEntities(m[1]!)] = decodeEntities(m[2]!);
    }
    for (const [name, value] of Object.entries(fields)) {
      if (value === null) delete form[name];
      else form[name] = value;
    }
    return this.send(decodeEntities(action), 'POST', new URLSearchParams(form).toString());
  }

  private async send(url: string, method: 'GET' | 'POST', body?: string): Promise<PageAnswer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(new URL(url, this.baseUrl), {
      method,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body,
    });
    const setCookie = res.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.location;
    return {
      status: res.statusCode,
      location: typeof location === 'string' ? location : undefined,
      html: await res.body.text(),
    };
  }
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** An access token by the password grant of the multi-tenant test client (all scopes allowed). */
export async function userToken(
  baseUrl: string,
  user: { email: string; password: string },
  scope = 'account',
): Promise<string> {
  const res = await formPost(
    `${baseUrl}/oauth/access_token/`,
    { grant_type: 'password', username: user.email, password: user.password, scope },
    { authorization: basic(TEST_CLIENTS.login.id, TEST_CLIENTS.login.secret) },
  );
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body['access_token'] as string;
}

/** A JSON call with an optional bearer token. */
export async function api(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  token: string | undefined,
  body?: unknown,
  options: { offContract?: boolean } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely; each assertion states the shape it expects.
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  const parsed = text === '' ? undefined : JSON.parse(text);
  const sent = { method, path, contentType: 'application/json', body };
  await checkRequestAgainstOpenApi(baseUrl, sent, res.statusCode, options);
  await checkResponseAgainstOpenApi(baseUrl, method, path, res.statusCode, parsed);
  return { status: res.statusCode, headers: res.headers, body: parsed };
}
