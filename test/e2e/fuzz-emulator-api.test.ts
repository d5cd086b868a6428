/**
 * Property-based fuzzing of the emulator's HTTP surface, in process (fastify inject): /TPFM/
 * query strings, headers and bodies, and the JSON body of every POST/PUT/PATCH API route, each
 * FUZZ_RUNS cases (1,000 in `npm test`; the full proof is FUZZ_RUNS=10000). Every case: no 5xx, a rejected request leaves the
 * database as it was, and no answer (body or headers, X-FMP-ErrText decoded) carries internal
 * detail. The server still answers normally afterwards.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance, HTTPMethods, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TPFM_COMMANDS } from '../../src/protocol/tpfm-codes.js';
import { registration } from '../integration/emulator-harness.js';
import {
  ALICE_CARD,
  DEMO,
  DEVICE_PASSWORD,
  holdJob,
  startTpfmHarness,
  type TpfmHarness,
} from '../integration/emulator-tpfm-harness.js';
import {
  anyJson,
  anyText,
  FUZZ_RUNS,
  FUZZ_SEED,
  FuzzTally,
  internalDetail,
  mutated,
  StateWatch,
} from './fuzz-support.js';

let h: TpfmHarness;
let app: FastifyInstance;
let heldJobId: string;
let watch: StateWatch;

beforeAll(async () => {
  h = await startTpfmHarness();
  app = h.emulator.app as unknown as FastifyInstance;
  heldJobId = await holdJob(h, 'fuzz.pdf');
  watch = new StateWatch(h.emulator.app.emulator.store.db);
});
afterAll(async () => {
  await h?.close();
});

/** Sends one request; records it; returns nothing (properties assert through the tally). */
async function probe(
  tally: FuzzTally,
  request: InjectOptions & { method: HTTPMethods; url: string },
  rejectedWhen: (status: number, headers: Record<string, unknown>) => boolean,
): Promise<void> {
  watch.before();
  const res = await app.inject(request);
  const rejected = rejectedWhen(res.statusCode, res.headers);
  tally.record(res.statusCode, rejected);
  const label = `${request.method} ${request.url.slice(0, 200)}`;
  if (res.statusCode >= 500)
    tally.problem(
      `${label} ${String(request.payload ?? '').slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`,
    );
  const changed = rejected ? watch.changedTables() : [];
  if (changed.length > 0)
    tally.problem(
      `${label} ${String(request.payload ?? '').slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 200)}: changed ${changed.join(', ')}`,
    );
  const errText = res.headers['x-fmp-errtext'];
  const decoded = typeof errText === 'string' ? Buffer.from(errText, 'base64').toString('utf8') : '';
  const leak = internalDetail(`${res.body}\n${JSON.stringify(res.headers)}\n${decoded}`);
  if (leak) tally.problem(`${label} -> ${res.statusCode} shows "${leak}": ${res.body.slice(0, 300)}`);
}

/** A Basic header of the device (printer password) for `user`, or something broken. */
const tpfmAuthorization = fc.oneof(
  fc.constant(undefined),
  fc
    .constantFrom(DEMO.user.email, ALICE_CARD, 'bob@demo.test', 'nobody@nowhere', '')
    .map((user) => `Basic ${Buffer.from(`${user}:${DEVICE_PASSWORD}`).toString('base64')}`),
  anyText.map((text) => `Basic ${Buffer.from(text).toString('base64')}`),
  anyText.map((text) => `Basic ${text}`),
  anyText,
);

const TPFM_PARAMS = [
  'Printer',
  'JobId',
  'Job',
  'Copies',
  'Delete',
  'Progress',
  'ProcId',
  'Type',
  'Color',
  'Duplex',
  'PaperId',
  'Pages',
  'Status',
  'MaxEntries',
  'ModifiedDate',
  'PageNumber',
  'PutOnHold',
  'ShowPutOnHoldJobs',
  'DocumentName',
  'FileExtension',
];

const tpfmQuery = fc
  .record({
    cmd: fc.oneof(fc.constantFrom(...Object.keys(TPFM_COMMANDS)), anyText),
    params: fc.dictionary(
      fc.oneof(fc.constantFrom(...TPFM_PARAMS), anyText),
      fc.oneof(anyText, fc.constant('')),
      {
        maxKeys: 6,
      },
    ),
    knownJob: fc.boolean(),
    printer: fc.boolean(),
  })
  .map(({ cmd, params, knownJob, printer }) => {
    const search = new URLSearchParams({ Cmd: cmd, ...params });
    if (knownJob) search.set('JobId', heldJobId);
    if (printer) search.set('Printer', DEMO.printer.name);
    return search.toString();
  });

const DEVICE_HEADERS = { 'x-lang-id': 'en', 'x-fmp-user-agent': 'PrintRelay fuzz device' };

/** A form body from any JSON value (objects flattened one level, everything else under `value`). */
function flatten(body: unknown): Record<string, string> {
  if (body && typeof body === 'object' && !Array.isArray(body))
    return Object.fromEntries(
      Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]),
    );
  return { value: JSON.stringify(body) ?? '' };
}

interface FuzzRoute {
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  /** A valid body, the starting point of mutations (so cases reach past the first check). */
  sample: (h: TpfmHarness) => Record<string, unknown>;
}

const event = () => ({ event_id: randomUUID(), seq: 1, kind: 'received', at: new Date().toISOString() });

/** Every route of the emulator that takes a body (src/emulator/*\/*-routes.ts). */
const ROUTES: FuzzRoute[] = [
  { method: 'POST', path: '/connector/v1/register', sample: () => ({ ...registration('FUZZ-1', 'Fuzz') }) },
  {
    method: 'POST',
    path: '/connector/v1/events',
    sample: () => ({ events: [{ job_id: heldJobId, event: event() }] }),
  },
  { method: 'POST', path: '/connector/v1/jobs/:id/events', sample: () => event() },
  { method: 'POST', path: '/connector/v1/jobs/:id/claim', sample: () => ({}) },
  { method: 'PUT', path: '/connector/v1/printers/:id/properties', sample: () => ({ Trays: [null] }) },
  { method: 'PATCH', path: '/connector/v1/printers/:id/properties', sample: () => ({ Trays: [null] }) },
  { method: 'PUT', path: '/connector/v1/printers/:id/blob_capabilities', sample: () => ({ defaults: {} }) },
  {
    method: 'POST',
    path: '/printing/v1/printers',
    sample: (t) => ({
      name: 'Fuzz printer',
      connector_id: t.connectorId,
      supported_formats: ['application/pdf'],
    }),
  },
  {
    method: 'PUT',
    path: '/printing/v1/printers/:id',
    sample: () => ({ name: 'Fuzz renamed', location: 'here' }),
  },
  { method: 'PATCH', path: '/printing/v1/printers/:id', sample: () => ({ location: 'there' }) },
  { method: 'POST', path: '/printing/v1/printers/:id/pull_printing_pairing', sample: () => ({}) },
  { method: 'POST', path: '/printing/v1/groups', sample: () => ({ name: 'Fuzz group' }) },
  { method: 'PATCH', path: '/printing/v1/groups/:id', sample: () => ({ name: 'Fuzz group 2' }) },
  { method: 'PATCH', path: '/printing/v1/assignments/:id', sample: () => ({ printers: [] }) },
  { method: 'PATCH', path: '/printing/v1/users/:id', sample: () => ({ pull_printing: true }) },
  {
    method: 'POST',
    path: '/v1/oauth-clients/confidential',
    sample: () => ({ name: 'Fuzz app', redirect_uris: ['https://fuzz.example/cb'], scopes: ['printing'] }),
  },
  {
    method: 'POST',
    path: '/v1/oauth-clients/public',
    sample: () => ({ name: 'Fuzz public', redirect_uris: ['http://127.0.0.1/cb'], scopes: ['printing'] }),
  },
  { method: 'PATCH', path: '/v1/oauth-clients/:id', sample: () => ({ name: 'Fuzz app 2' }) },
  {
    method: 'POST',
    path: '/sfapi/Print/',
    sample: (t) => ({ fileid: randomUUID(), type: 'pdf', printerid: t.demoPrinterId, alias: 'f.pdf' }),
  },
  {
    method: 'POST',
    path: '/oauth/access_token',
    sample: () => ({
      grant_type: 'password',
      username: DEMO.user.email,
      password: 'wrong',
      client_id: DEMO.client.id,
    }),
  },
  { method: 'POST', path: '/oauth/pair', sample: () => ({ client_id: DEMO.client.id, scope: 'printing' }) },
  {
    method: 'POST',
    path: '/oauth/revoke',
    sample: () => ({ token: randomUUID(), client_id: DEMO.client.id }),
  },
];

describe('fuzzing the emulator in process', () => {
  it(`/TPFM/: ${FUZZ_RUNS} query strings, headers and bodies`, async () => {
    const tally = new FuzzTally();
    await fc.assert(
      fc.asyncProperty(
        tpfmQuery,
        tpfmAuthorization,
        fc.option(fc.constantFrom('en', 'de', 'xx', ''), { nil: undefined }),
        fc.boolean(),
        fc.option(anyText, { nil: undefined }),
        async (query, authorization, lang, agent, body) => {
          const headers: Record<string, string> = {};
          if (authorization !== undefined) headers.authorization = authorization;
          if (lang !== undefined) headers['x-lang-id'] = lang;
          if (agent) headers['x-fmp-user-agent'] = 'PrintRelay fuzz device';
          await probe(
            tally,
            {
              method: 'GET',
              url: `/TPFM/?${query}`,
              headers,
              ...(body === undefined ? {} : { payload: body }),
            },
            (status, answer) => status >= 400 || answer['x-fmp-return'] !== '0',
          );
        },
      ),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
    );
    console.info(tally.summary('fuzz /TPFM/'));
    expect(tally.problems).toEqual([]);
    expect(tally.cases).toBe(FUZZ_RUNS);
    const version = await app.inject({
      method: 'GET',
      url: '/TPFM/?Cmd=GetVersion',
      headers: DEVICE_HEADERS,
    });
    expect(version.statusCode).toBe(200);
  }, 600_000);

  it(`every JSON API body: ${FUZZ_RUNS} cases over ${ROUTES.length} routes`, async () => {
    const tally = new FuzzTally();
    const ids = [h.demoPrinterId, h.connectorId, heldJobId, randomUUID(), 'x', '..%2F..', 'a'.repeat(300)];
    const tokens = { admin: h.adminToken, alice: h.aliceToken };
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(
            ...ROUTES.filter((r) => !process.env.FUZZ_ROUTE || r.path.includes(process.env.FUZZ_ROUTE)),
          )
          .chain((route) => fc.tuple(fc.constant(route), fc.oneof(mutated(route.sample(h)), anyJson))),
        fc.constantFrom(...ids),
        fc.constantFrom('admin', 'alice', 'none', 'garbage') as fc.Arbitrary<
          'admin' | 'alice' | 'none' | 'garbage'
        >,
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
        async ([route, body], id, who, contentType) => {
          const headers: Record<string, string> = { 'content-type': contentType };
          if (who === 'admin' || who === 'alice') headers.authorization = `Bearer ${tokens[who]}`;
          if (who === 'garbage') headers.authorization = `Bearer ${randomUUID()}`;
          const payload =
            contentType === 'application/json'
              ? (JSON.stringify(body) ?? 'null')
              : new URLSearchParams(flatten(body)).toString();
          await probe(
            tally,
            {
              method: route.method,
              url: route.path.replace(':id', encodeURIComponent(id)),
              headers,
              payload,
            },
            (status) => status >= 400,
          );
        },
      ),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
    );
    console.info(tally.summary('fuzz JSON API bodies'));
    expect(tally.problems).toEqual([]);
    expect(tally.cases).toBe(FUZZ_RUNS);
    const printers = await app.inject({
      method: 'GET',
      url: '/sfapi/GetPrinter/',
      headers: { authorization: `Bearer ${h.aliceToken}` },
    });
    expect(printers.statusCode).toBe(200);
  }, 600_000);
});
