/**
 * Test harness for the emulator's integration tests: starts an emulator with the demo seed on
 * 127.0.0.1 port 0 in a temp data dir, and small undici helpers for tokens and JSON calls.
 * `close()` stops the emulator and removes the temp dir.
 */
import type { ChannelSettings } from '../../src/emulator/connectors/connector-hub.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { DEMO, defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import type { EmulatorSeed } from '../../src/config/emulator-seed-schema.js';
import { type Emulator, createEmulator } from '../../src/emulator/app.js';
import type { DownloadLimits } from '../../src/emulator/http/download-gate.js';
import type { WebhookOptions } from '../../src/emulator/webhooks/webhook-parts.js';
import type { SandboxOptions } from '../../src/emulator/sandbox/sandbox.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { CredentialLimits } from '../../src/emulator/store/credential-guard.js';
import { type Logger, silentLogger } from '../../src/log/logger.js';
import type { ConnectorRegistration } from '../../src/protocol/connector-channel.js';
import { checkRequestAgainstOpenApi } from '../support/openapi-requests.js';
import { checkResponseAgainstOpenApi } from '../support/openapi-responses.js';

export { DEMO };

/**
 * The allow-list of test emulators: their webhook receivers and fileurl servers listen on
 * loopback, which the emulator refuses by default.
 */
export const LOOPBACK_ALLOW: readonly string[] = ['127.0.0.0/8', '::1/128'];

export interface Harness {
  emulator: Emulator;
  baseUrl: string;
  clock: ManualClock;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts an emulator (':memory:' database unless `db` is given). */
export async function startHarness(
  options: {
    seed?: EmulatorSeed;
    db?: string;
    dataDir?: string;
    heartbeatS?: number;
    clock?: ManualClock;
    webhooks?: WebhookOptions;
    credentialLimits?: CredentialLimits;
    /** Ranges fileurl and webhooks may reach; default LOOPBACK_ALLOW (the tests' receivers). */
    outboundAllow?: readonly string[];
    /** Extra CORS origins (besides registered redirect URLs). */
    corsOrigins?: readonly string[];
    /** Listening address (default 127.0.0.1). */
    host?: string;
    /** Largest document stored, in bytes (default the emulator's 4 GiB). */
    maxDocumentBytes?: number;
    /** The console, faults and test clock (default on). */
    sandbox?: SandboxOptions;
    /** The connector channel's highest protocol and inline document limit (default 3, 256 KiB). */
    connectorChannel?: ChannelSettings;
    /** The emulator's logger (default: silent). */
    logger?: Logger;
    /** Caps of document downloads at once (default the emulator's). */
    downloads?: Partial<DownloadLimits>;
  } = {},
): Promise<Harness> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'emulator-test-')));
  const clock = options.clock ?? new ManualClock(Date.now());
  const emulator = await createEmulator({
    db: options.db ?? ':memory:',
    dataDir,
    seed: options.seed ?? defaultEmulatorSeed(),
    logger: options.logger ?? silentLogger(),
    clock,
    ...(options.heartbeatS === undefined ? {} : { channelHeartbeatS: options.heartbeatS }),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.credentialLimits === undefined ? {} : { credentialLimits: options.credentialLimits }),
    outboundAllow: options.outboundAllow ?? LOOPBACK_ALLOW,
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: options.maxDocumentBytes }),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.connectorChannel ? { connectorChannel: options.connectorChannel } : {}),
    ...(options.downloads ? { downloads: options.downloads } : {}),
  });
  const baseUrl = await emulator.listen(options.host ?? '127.0.0.1', 0);
  return {
    emulator,
    baseUrl,
    clock,
    dataDir,
    close: async () => {
      await emulator.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Basic header of the demo client. */
export function demoBasic(id: string = DEMO.client.id, secret: string = DEMO.client.secret): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

export interface CallResult<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** A form POST to the token endpoint. */
export async function tokenRequest(
  baseUrl: string,
  form: Record<string, string>,
  authorization?: string,
  options: { offContract?: boolean } = {},
): Promise<CallResult<Record<string, unknown>>> {
  const res = await request(`${baseUrl}/oauth/access_token/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.body.json()) as Record<string, unknown>;
  const sent = {
    method: 'POST',
    path: '/oauth/access_token/',
    contentType: 'application/x-www-form-urlencoded',
    body: form,
  };
  await checkRequestAgainstOpenApi(baseUrl, sent, res.statusCode, options);
  await checkResponseAgainstOpenApi(baseUrl, 'POST', '/oauth/access_token/', res.statusCode, body);
  return { status: res.statusCode, headers: res.headers, body };
}

/** An access token of a demo user by the password grant. */
export async function passwordToken(
  baseUrl: string,
  scope: string,
  user: { email: string; password: string } = DEMO.admin,
): Promise<string> {
  const res = await tokenRequest(
    baseUrl,
    { grant_type: 'password', username: user.email, password: user.password, scope },
    demoBasic(),
  );
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body['access_token'] as string;
}

/**
 * A JSON call with a bearer token; the body is parsed when there is one. The request is checked
 * against /openapi.json (test/support/openapi-requests.ts): give `offContract` when the test sends
 * input the document calls wrong on purpose (lenient input); the answer is checked too.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely; each assertion states the shape it expects.
export async function call<T = any>(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
  options: { offContract?: boolean } = {},
): Promise<CallResult<T>> {
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  const parsed = text === '' ? undefined : JSON.parse(text);
  const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const sent = { method, path, contentType: contentType ?? 'application/json', body };
  await checkRequestAgainstOpenApi(baseUrl, sent, res.statusCode, options);
  await checkResponseAgainstOpenApi(baseUrl, method, path, res.statusCode, parsed);
  return { status: res.statusCode, headers: res.headers, body: parsed as T };
}

/**
 * Creates an Online printer named `name` on connector `connectorId` through the printers API
 * (`X-Host-Id`); throws unless the answer is 201; returns the printer id.
 */
export async function createPrinter(
  baseUrl: string,
  token: string,
  connectorId: string,
  name: string,
): Promise<string> {
  const res = await call(
    baseUrl,
    'POST',
    '/printing/v1/printers/',
    token,
    { name, status: 'Online' },
    { 'x-host-id': connectorId },
  );
  if (res.status !== 201) throw new Error(`printer ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A registration body with the given serial. */
export function registration(serial: string, name = 'Office connector'): ConnectorRegistration {
  return {
    serial_string: serial,
    type: 'TPHub',
    readable_name: name,
    hostname: 'host-1',
    internal_ip: '10.0.0.5',
    external_ip: null,
    os_type: 'Linux',
    sw_version: '0.1.0',
    supported_formats: 'RAW,PDF',
  };
}
