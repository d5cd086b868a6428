/**
 * A running emulator for the /sfapi/ and storage tests: demo seed, in-memory database, a temp
 * data directory, listening on a free port; tokens of the demo user and of another
 * organization's admin; one printer registered through the connector channel. `close()` stops
 * the emulator and removes the directory.
 */
import type { UploadLimits } from '../../src/emulator/files/upload-limits.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { EmulatorSeed } from '../../src/config/emulator-seed-schema.js';
import type { Clock } from '../../src/lib/clock.js';
import { type Logger, silentLogger } from '../../src/log/logger.js';
import type { ConnectorRegistration } from '../../src/protocol/connector-channel.js';
import { checkRequestAgainstOpenApi } from '../support/openapi-requests.js';
import { checkResponseAgainstOpenApi } from '../support/openapi-responses.js';

export interface SfapiHarness {
  emulator: Emulator;
  base: string;
  dataDir: string;
  /** Demo user's token (scope printing). */
  token: string;
  /** Other organization's admin token (scope printing). */
  otherToken: string;
  printerId: string;
  printerName: string;
  close(): Promise<void>;
}

/** A password-grant token of a client (default: the demo client). */
export async function passwordToken(
  base: string,
  username: string,
  password: string,
  scope: string,
  client: { id: string; secret: string } = DEMO.client,
): Promise<string> {
  const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
  const response = await request(`${base}/oauth/access_token/`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password, scope }).toString(),
  });
  const body = (await response.body.json()) as { access_token?: string };
  if (response.statusCode !== 200 || !body.access_token) {
    throw new Error(`token request for ${username} failed: ${response.statusCode} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

async function json(base: string, method: 'POST', path: string, token: string, body: unknown, headers = {}) {
  const response = await request(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
  return JSON.parse(text) as { id: string };
}

/** Registers a connector of the demo organization and a printer behind it; returns the printer id. */
async function registerPrinter(base: string, name: string): Promise<string> {
  const admin = await passwordToken(
    base,
    DEMO.admin.email,
    DEMO.admin.password,
    'printing printing.connectors',
  );
  const registration: ConnectorRegistration = {
    serial_string: 'sfapi-test-connector',
    type: 'Printserver',
    readable_name: 'sfapi test connector',
    hostname: 'test-host',
    internal_ip: '127.0.0.1',
    external_ip: null,
    os_type: 'Linux',
    sw_version: '0.1.0',
    supported_formats: 'PDF',
  };
  const connector = await json(base, 'POST', '/connector/v1/register', admin, registration);
  const printer = await json(
    base,
    'POST',
    '/printing/v1/printers/',
    admin,
    { name, status: 'Online' },
    {
      'x-host-id': connector.id,
    },
  );
  return printer.id;
}

/** A client of the other organization (the demo seed gives it none). */
export const OTHER_CLIENT = { id: 'other-app', secret: 'other-secret' };

/** The demo seed plus a client of the other organization. */
/** The demo seed plus a second OAuth client (OTHER_CLIENT) in the other organization. */
export function seedWithOtherClient(): EmulatorSeed {
  const value = defaultEmulatorSeed();
  const demoClient = value.organizations[0]!.oauth_clients[0]!;
  value.organizations[1]!.oauth_clients.push({
    ...demoClient,
    client_id: OTHER_CLIENT.id,
    client_secret: OTHER_CLIENT.secret,
    name: 'Other App',
  });
  return value;
}

/** Starts the emulator; the caller closes the harness. */
export async function startSfapiHarness(
  clock?: Clock,
  logger: Logger = silentLogger(),
  // The fileurl tests serve their documents on loopback, which the emulator refuses by default.
  outboundAllow: readonly string[] = ['127.0.0.0/8', '::1/128'],
  /** Largest document stored, in bytes (default the emulator's 4 GiB). */
  maxDocumentBytes?: number,
  /** Limits of PrepareUpload uploads (default the emulator's). */
  uploadLimits?: Partial<UploadLimits>,
): Promise<SfapiHarness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'printrelay-sfapi-'));
  const emulator = await createEmulator({
    db: ':memory:',
    dataDir,
    seed: seedWithOtherClient(),
    logger,
    ...(clock ? { clock } : {}),
    outboundAllow,
    ...(maxDocumentBytes === undefined ? {} : { maxDocumentBytes }),
    ...(uploadLimits === undefined ? {} : { uploadLimits }),
  });
  const base = await emulator.listen('127.0.0.1', 0);
  const printerName = 'Sfapi Test Printer';
  const printerId = await registerPrinter(base, printerName);
  const token = await passwordToken(base, DEMO.user.email, DEMO.user.password, 'printing');
  const { email, password } = DEMO.otherAdmin;
  const otherToken = await passwordToken(base, email, password, 'printing', OTHER_CLIENT);
  return {
    emulator,
    base,
    dataDir,
    token,
    otherToken,
    printerId,
    printerName,
    close: async () => {
      await emulator.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * GET or POST on the emulator with a bearer token; the parsed JSON body and the status. Request
 * and answer are checked against /openapi.json (`offContract`: the test sends lenient input on purpose).
 */
export async function call(
  harness: SfapiHarness,
  path: string,
  options: {
    method?: 'GET' | 'POST';
    body?: unknown;
    token?: string;
    offContract?: boolean;
    headers?: Record<string, string>;
  } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers of many shapes freely.
): Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }> {
  const response = await request(`${harness.base}${path}`, {
    method: options.method ?? 'GET',
    headers: {
      authorization: `Bearer ${options.token ?? harness.token}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.body.text();
  const body = text === '' ? undefined : JSON.parse(text);
  const sent = { method: options.method ?? 'GET', path, contentType: 'application/json', body: options.body };
  await checkRequestAgainstOpenApi(harness.base, sent, response.statusCode, options);
  await checkResponseAgainstOpenApi(harness.base, sent.method, path, response.statusCode, body);
  return { status: response.statusCode, body, headers: response.headers };
}
