/**
 * Shared setup of the /TPFM/ integration tests: an emulator with the demo seed plus a user
 * without pull printing and a pull printer name no connector registered; a connector (acting as
 * an agent over the connector routes) with "Demo Printer" (PDF) and "XPS Only"; helpers to hold
 * a job through /sfapi/, to call /TPFM/ over real HTTP, and to drive a job's events the way an
 * agent does (claim, then events). `close()` stops everything.
 */
import type { CredentialLimits } from '../../src/emulator/store/credential-guard.js';
import type { WebhookOptions } from '../../src/emulator/webhooks/webhook-parts.js';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { decodeErrText } from '../../src/protocol/tpfm-codes.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import { call, type Harness, passwordToken, registration, startHarness } from './emulator-harness.js';

export { DEMO };

/** A user of the demo organization with pull printing disabled. */
export const BOB = { email: 'bob@demo.test', password: 'demo-bob', card: 'B0B0B0B0' };
/** A pull printer name no connector has registered (device printer unknown). */
export const FUTURE = { name: 'Future Printer', password: 'future-device' };
export const DEVICE_PASSWORD = DEMO.printer.pullPrintingPassword;
export const ALICE_CARD = DEMO.user.card;

/** Minimal one-page PDF bytes. */
export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

export interface TpfmHarness extends Harness {
  adminToken: string;
  aliceToken: string;
  connectorId: string;
  demoPrinterId: string;
  xpsPrinterId: string;
  queuePrinterId: string;
}

/** The result of one /TPFM/ call. */
export interface TpfmAnswer {
  status: number;
  code: number | undefined;
  errText: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function json<T>(h: Harness, method: 'POST', path: string, token: string, body: unknown, headers = {}) {
  const res = await call<T>(h.baseUrl, method, path, token, body, headers);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Starts the emulator and registers the connector and printers. */
export async function startTpfmHarness(
  options: { credentialLimits?: CredentialLimits; webhooks?: WebhookOptions } = {},
): Promise<TpfmHarness> {
  const seed = defaultEmulatorSeed();
  const demo = seed.organizations[0]!;
  demo.users.push({
    email: BOB.email,
    password: BOB.password,
    first_name: 'Bob',
    last_name: 'NoPull',
    roles: ['user'],
    pull_printing_enabled: false,
    cards: [BOB.card],
  });
  demo.printers.push({ name: FUTURE.name, pull_printing_password: FUTURE.password });
  const h = await startHarness({ seed, ...options });
  const adminToken = await passwordToken(h.baseUrl, 'printing printing.connectors');
  const aliceToken = await passwordToken(h.baseUrl, 'printing', DEMO.user);
  const connector = await json<{ id: string }>(h, 'POST', '/connector/v1/register', adminToken, {
    ...registration('tpfm-test-connector', 'TPFM test connector'),
    supported_formats: 'PDF,XPS',
  });
  const printer = (name: string, formats: string[]) =>
    json<{ id: string }>(
      h,
      'POST',
      '/printing/v1/printers/',
      adminToken,
      { name, status: 'Online', supported_formats: formats },
      { 'x-host-id': connector.id },
    );
  const demoPrinter = await printer(DEMO.printer.name, ['PDF']);
  const xpsPrinter = await printer('XPS Only', ['XPS']);
  const list = await call<{ id: string; name: string }[]>(h.baseUrl, 'GET', '/sfapi/GetPrinter', aliceToken);
  const queue = list.body.find((p) => p.name === 'Pull Printing');
  if (!queue) throw new Error('no Pull Printing queue in GetPrinter');
  return {
    ...h,
    adminToken,
    aliceToken,
    connectorId: connector.id,
    demoPrinterId: demoPrinter.id,
    xpsPrinterId: xpsPrinter.id,
    queuePrinterId: queue.id,
  };
}

/** Uploads a PDF and prints it to the queue printer as alice; returns the held job id. */
export async function holdJob(
  h: TpfmHarness,
  alias = 'Quarterly report',
  token = h.aliceToken,
): Promise<string> {
  const prep = await call<{ fileid: string; sasUri: string }>(
    h.baseUrl,
    'GET',
    '/sfapi/PrepareUpload',
    token,
  );
  const put = await request(prep.body.sasUri, {
    method: 'PUT',
    headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/pdf' },
    body: PDF,
  });
  await put.body.dump();
  if (put.statusCode >= 300) throw new Error(`upload failed: ${put.statusCode}`);
  const print = await call<{ jobid: string }>(h.baseUrl, 'POST', '/sfapi/Print', token, {
    printerid: h.queuePrinterId,
    fileid: prep.body.fileid,
    type: 'pdf',
    alias,
  });
  if (print.status !== 200) throw new Error(`print failed: ${print.status} ${JSON.stringify(print.body)}`);
  return print.body.jobid;
}

/** Options of one /TPFM/ call. */
export interface TpfmCallOptions {
  user?: string;
  password?: string;
  lang?: string | null;
  agent?: string | null;
  authorization?: string;
}

/** GET /TPFM/?Cmd=... over real HTTP. */
export async function tpfm(
  h: Harness,
  cmd: string,
  params: Record<string, string | number> = {},
  options: TpfmCallOptions = {},
): Promise<TpfmAnswer> {
  const url = new URL('/TPFM/', h.baseUrl);
  url.searchParams.set('Cmd', cmd);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {};
  if (options.lang !== null) headers['x-lang-id'] = options.lang ?? 'en';
  if (options.agent !== null) headers['x-fmp-user-agent'] = options.agent ?? 'PrintRelay test device';
  if (options.authorization) headers.authorization = options.authorization;
  else if (options.user !== undefined) {
    const secret = `${options.user}:${options.password ?? DEVICE_PASSWORD}`;
    headers.authorization = `Basic ${Buffer.from(secret).toString('base64')}`;
  }
  const res = await request(url, { headers });
  const body = await res.body.text();
  const raw = res.headers['x-fmp-return'];
  return {
    status: res.statusCode,
    code: typeof raw === 'string' ? Number(raw) : undefined,
    errText: decodeErrText(res.headers['x-fmp-errtext'] as string | undefined),
    headers: res.headers,
    body,
  };
}

/**
 * The real job a release created, as the connector sees it: long-polls GET /connector/v1/jobs
 * (the agent's fallback path) until an offer for the printer with that document name appears.
 */
export async function releasedJob(h: TpfmHarness, printerId: string, name: string): Promise<string> {
  for (;;) {
    const poll = await call<{ jobs: { job_id: string; printer_id: string; document: { name: string } }[] }>(
      h.baseUrl,
      'GET',
      '/connector/v1/jobs?wait=5',
      h.adminToken,
      undefined,
      { 'x-host-id': h.connectorId },
    );
    const offer = poll.body.jobs.find((j) => j.printer_id === printerId && j.document.name === name);
    if (offer) return offer.job_id;
  }
}

/** Drives a job as an agent would: claim, then the given events in order (seq from 1). */
export class AgentDriver {
  private seq = 0;

  constructor(
    private readonly h: TpfmHarness,
    readonly jobId: string,
  ) {}

  /** POST /connector/v1/jobs/<id>/claim. */
  async claim(): Promise<void> {
    const path = `/connector/v1/jobs/${this.jobId}/claim`;
    await json(this.h, 'POST', path, this.h.adminToken, {}, { 'x-host-id': this.h.connectorId });
  }

  /** POST /connector/v1/jobs/<id>/events with the next seq. */
  async event(kind: string, extra: Record<string, unknown> = {}): Promise<void> {
    this.seq += 1;
    const body = { event_id: randomUUID(), seq: this.seq, kind, at: new Date().toISOString(), ...extra };
    const res = await call(
      this.h.baseUrl,
      'POST',
      `/connector/v1/jobs/${this.jobId}/events`,
      this.h.adminToken,
      body,
      {
        'x-host-id': this.h.connectorId,
      },
    );
    if (res.status !== 204) throw new Error(`event ${kind}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
