/**
 * The webhook management interface against a running emulator: scopes, endpoint create / list /
 * read / merge patch / delete, secrets never echoed and sealed at rest, data protection
 * settings, and the endpoint test as a real HTTPS POST to receivers with a private CA that the
 * emulator trusts by configuration (and a receiver of an untrusted CA it refuses).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
  type TestCertificates,
} from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { call, DEMO, type Harness, passwordToken, startHarness, tokenRequest } from './emulator-harness.js';
import { OTHER_CLIENT, seedWithOtherClient } from './emulator-sfapi-harness.js';

const haveOpenssl = peersAvailable('openssl');
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe.runIf(haveOpenssl)('webhook interface', () => {
  let h: Harness;
  let certs: TestCertificates;
  let untrusted: TestCertificates;
  let token: string;
  let readonly: string;
  let printingOnly: string;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (certSet: TestCertificates, b: Parameters<typeof startHttpsReceiver>[1]) => {
    const r = await startHttpsReceiver(certSet, b);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    [certs, untrusted] = await Promise.all([makeTestCertificates(), makeTestCertificates()]);
    h = await startHarness({
      seed: seedWithOtherClient(),
      webhooks: { extraCaPem: certs.caPem, timeoutMs: 1500 },
    });
    token = await passwordToken(h.baseUrl, 'webhooks');
    readonly = await passwordToken(h.baseUrl, 'webhooks.readonly');
    printingOnly = await passwordToken(h.baseUrl, 'printing');
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h?.close();
    await certs?.remove();
    await untrusted?.remove();
  });

  const create = (body: unknown, bearer = token) =>
    call(h.baseUrl, 'POST', '/webhooks/endpoints', bearer, body);

  it('checks the webhooks scopes: GET with webhooks.readonly, writes with webhooks only', async () => {
    expect((await call(h.baseUrl, 'GET', '/webhooks/endpoints', undefined)).status).toBe(401);
    const noScope = await call(h.baseUrl, 'GET', '/webhooks/endpoints', printingOnly);
    expect([noScope.status, noScope.body.error]).toEqual([403, 'insufficient_scope']);
    expect((await call(h.baseUrl, 'GET', '/webhooks/settings', readonly)).status).toBe(200);
    const write = await create({ name: 'x', url: 'https://127.0.0.1/x' }, readonly);
    expect([write.status, write.body.error]).toEqual([403, 'insufficient_scope']);
  });

  it("leaves the organization's webhooks to its admins: an ordinary user gets 403 on every route", async () => {
    const admins = await create({ name: 'Admin hook', url: 'https://127.0.0.1:9/admin' });
    expect(admins.status).toBe(201);
    const id = admins.body.endpoint_id as string;
    const alice = await passwordToken(h.baseUrl, 'webhooks', DEMO.user);
    const aliceReader = await passwordToken(h.baseUrl, 'webhooks.readonly', DEMO.user);
    const tries: Array<[Parameters<typeof call>[1], string, string, unknown?]> = [
      ['POST', '/webhooks/endpoints', alice, { name: 'Spy', url: 'https://127.0.0.1:9/spy' }],
      ['GET', '/webhooks/endpoints', alice],
      ['GET', '/webhooks/endpoints', aliceReader],
      ['GET', `/webhooks/endpoints/${id}`, alice],
      ['PATCH', `/webhooks/endpoints/${id}`, alice, { disabled: true }],
      ['DELETE', `/webhooks/endpoints/${id}`, alice],
      [
        'PUT',
        '/webhooks/endpoints/test',
        alice,
        { url: 'https://127.0.0.1:9/t', topic: 'printjob_succeeded' },
      ],
      ['GET', `/webhooks/endpoints/${id}/events`, aliceReader],
      ['DELETE', `/webhooks/endpoints/${id}/events`, alice],
      ['PUT', `/webhooks/endpoints/${id}/events/retry`, alice],
      ['GET', '/webhooks/settings', aliceReader],
      ['PATCH', '/webhooks/settings', alice, { file_name_obfuscated: false }],
    ];
    for (const [method, path, bearer, body] of tries) {
      const res = await call(h.baseUrl, method, path, bearer, body, method === 'PATCH' ? MERGE : {});
      expect([method, path, res.status, res.body.error]).toEqual([method, path, 403, 'forbidden']);
      expect(res.body.message).toMatch(/organization admin/);
    }
    const still = await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}`, token);
    expect([still.status, still.body.disabled]).toEqual([200, false]);
  });

  it('creates an endpoint: defaults, the password sealed and never returned', async () => {
    const res = await create({
      name: 'Billing',
      url: 'https://127.0.0.1:9/hook',
      authentication_scheme: 'basic',
      basic_username: 'billing',
      basic_password: 'hook-secret-1',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      endpoint_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Billing',
      url: 'https://127.0.0.1:9/hook',
      topics: ['printjob_succeeded', 'printjob_failed'],
      disabled: false,
      authentication_scheme: 'basic',
      basic_username: 'billing',
      basic_password_set: true,
    });
    const row = h.emulator.app.emulator.store.db
      .prepare('SELECT basic_password_sealed AS s FROM webhook_endpoints WHERE id = ?')
      .get(res.body.endpoint_id) as { s: string };
    expect(row.s.startsWith('v1.')).toBe(true);
    expect(row.s).not.toContain('hook-secret-1');
    const read = await call(h.baseUrl, 'GET', `/webhooks/endpoints/${res.body.endpoint_id}`, readonly);
    expect(read.body).toEqual(res.body);
    expect(JSON.stringify(read.body)).not.toContain('hook-secret-1');
  });

  it.each([
    ['a plain http URL', { name: 'a', url: 'http://127.0.0.1/hook' }, 'url'],
    ['no name', { url: 'https://127.0.0.1/hook' }, 'name'],
    [
      'an unknown topic',
      { name: 'a', url: 'https://127.0.0.1/h', topics: ['printjob_started'] },
      'topics[0]',
    ],
    ['an unknown field', { name: 'a', url: 'https://127.0.0.1/h', secret: 'x' }, 'secret'],
    [
      'a colon in the user name',
      { name: 'a', url: 'https://127.0.0.1/h', basic_username: 'a:b' },
      'basic_username',
    ],
  ])('refuses %s with 400 naming the field', async (_what, body, field) => {
    const before = (await call(h.baseUrl, 'GET', '/webhooks/endpoints', token)).body.count;
    const res = await create(body);
    expect([res.status, res.body.error, res.body.field]).toEqual([400, 'invalid_request', field]);
    expect((await call(h.baseUrl, 'GET', '/webhooks/endpoints', token)).body.count).toBe(before);
  });

  it('lists endpoints in pages with next links', async () => {
    for (const name of ['p1', 'p2', 'p3']) await create({ name, url: `https://127.0.0.1/${name}` });
    const all = await call(h.baseUrl, 'GET', '/webhooks/endpoints?limit=1000', token);
    const first = await call(h.baseUrl, 'GET', '/webhooks/endpoints?limit=2', token);
    expect(first.body.count).toBe(all.body.count);
    expect(first.body.results.map((e: { name: string }) => e.name)).toEqual(
      all.body.results.slice(0, 2).map((e: { name: string }) => e.name),
    );
    expect(first.body.next).toBe(`${h.baseUrl}/webhooks/endpoints?limit=2&offset=2`);
    const bad = await call(h.baseUrl, 'GET', '/webhooks/endpoints?limit=0', token);
    expect([bad.status, bad.body.field]).toEqual([400, 'limit']);
  });

  it('merge-patches an endpoint; authentication_scheme null removes the credentials', async () => {
    const id = (
      await create({
        name: 'Patch me',
        url: 'https://127.0.0.1/p',
        authentication_scheme: 'basic',
        basic_username: 'u',
        basic_password: 'pw-123456',
      })
    ).body.endpoint_id;
    const path = `/webhooks/endpoints/${id}`;
    const renamed = await call(h.baseUrl, 'PATCH', path, token, { name: 'Renamed', disabled: true }, MERGE);
    expect(renamed.status).toBe(200);
    expect([renamed.body.name, renamed.body.disabled, renamed.body.basic_password_set]).toEqual([
      'Renamed',
      true,
      true,
    ]);
    const noAuth = await call(h.baseUrl, 'PATCH', path, token, { authentication_scheme: null }, MERGE);
    expect([
      noAuth.body.authentication_scheme,
      noAuth.body.basic_username,
      noAuth.body.basic_password_set,
    ]).toEqual([null, '', false]);
    const nullName = await call(h.baseUrl, 'PATCH', path, token, { name: null }, MERGE);
    expect([nullName.status, nullName.body.field]).toEqual([400, 'name']);
    expect((await call(h.baseUrl, 'GET', path, token)).body.name).toBe('Renamed');
  });

  it('deletes an endpoint (204, then 404) and hides endpoints of other organizations', async () => {
    const id = (await create({ name: 'Doomed', url: 'https://127.0.0.1/d' })).body.endpoint_id;
    const basic = `Basic ${Buffer.from(`${OTHER_CLIENT.id}:${OTHER_CLIENT.secret}`).toString('base64')}`;
    const { email, password } = DEMO.otherAdmin;
    const other = (
      await tokenRequest(
        h.baseUrl,
        { grant_type: 'password', username: email, password, scope: 'webhooks' },
        basic,
      )
    ).body['access_token'] as string;
    expect((await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}`, other)).status).toBe(404);
    expect((await call(h.baseUrl, 'DELETE', `/webhooks/endpoints/${id}`, other)).status).toBe(404);
    expect((await call(h.baseUrl, 'DELETE', `/webhooks/endpoints/${id}`, token)).status).toBe(204);
    expect((await call(h.baseUrl, 'GET', `/webhooks/endpoints/${id}`, token)).status).toBe(404);
  });

  it('keeps data protection settings per organization, changed by merge patch', async () => {
    const initial = await call(h.baseUrl, 'GET', '/webhooks/settings', token);
    expect(initial.body).toEqual({
      file_name_obfuscated: false,
      user_email_disabled: false,
      user_name_disabled: false,
    });
    const patched = await call(
      h.baseUrl,
      'PATCH',
      '/webhooks/settings',
      token,
      { user_email_disabled: true },
      MERGE,
    );
    expect(patched.body).toEqual({
      file_name_obfuscated: false,
      user_email_disabled: true,
      user_name_disabled: false,
    });
    const bad = await call(
      h.baseUrl,
      'PATCH',
      '/webhooks/settings',
      token,
      { user_phone_disabled: true },
      MERGE,
    );
    expect([bad.status, bad.body.field]).toEqual([400, 'user_phone_disabled']);
    const reset = await call(
      h.baseUrl,
      'PATCH',
      '/webhooks/settings',
      token,
      { user_email_disabled: null },
      MERGE,
    );
    expect(reset.body.user_email_disabled).toBe(false);
  });

  describe('PUT /webhooks/endpoints/test', () => {
    const test = (body: unknown) => call(h.baseUrl, 'PUT', '/webhooks/endpoints/test', token, body);

    it('sends the sample event with the spec headers and answers the transcript, adding nothing', async () => {
      const ok = await receiver(certs, answer(200));
      const before = (await call(h.baseUrl, 'GET', '/webhooks/endpoints', token)).body.count;
      const res = await test({
        url: ok.url,
        topic: 'printjob_failed',
        authentication_scheme: 'basic',
        basic_username: 'tester',
        basic_password: 'test-pass-9',
      });
      expect(res.status).toBe(200);
      expect(ok.requests).toHaveLength(1);
      const got = ok.requests[0]!;
      expect(got.headers['authorization']).toBe(
        `Basic ${Buffer.from('tester:test-pass-9').toString('base64')}`,
      );
      expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(got.headers['user-agent']).toBe('PrintRelay-Webhooks/2.0');
      const event = JSON.parse(got.body);
      expect([event.topic, event.content.printjob.status, event.content.printjob.type]).toEqual([
        'printjob_failed',
        'failed',
        'network',
      ]);
      expect(res.body.status).toBe('succeeded');
      expect(res.body.request.start_line).toBe('POST /hook HTTP/1.1');
      expect(res.body.request.body).toBe(got.body);
      expect(res.body.request.headers).toContain('Authorization: Basic [redacted]');
      expect(res.body.request.headers).not.toContain('test-pass-9');
      expect(res.body.response.start_line).toBe('HTTP/1.1 200 OK');
      expect(res.body.response.body).toBe('answer 200');
      expect(res.body.error).toBeUndefined();
      expect((await call(h.baseUrl, 'GET', '/webhooks/endpoints', token)).body.count).toBe(before);
    });

    it('reports a non-2xx answer as response_status_code', async () => {
      const failing = await receiver(certs, answer(503));
      const res = await test({ url: failing.url, topic: 'printjob_succeeded' });
      expect([res.body.status, res.body.error, res.body.response_status_code]).toEqual([
        'failed',
        'response_status_code',
        503,
      ]);
      expect(res.body.response.start_line).toBe('HTTP/1.1 503 Service Unavailable');
    });

    it('reports a receiver that never answers as timeout (deadline from the config)', async () => {
      const stalled = await receiver(certs, () => 'stall');
      const res = await test({ url: stalled.url, topic: 'printjob_succeeded' });
      expect([res.body.status, res.body.error, res.body.detail]).toEqual([
        'failed',
        'timeout',
        'no answer within the deadline',
      ]);
      expect(stalled.requests).toHaveLength(1);
    });

    it('reports a closed connection as timeout (no answer)', async () => {
      const closing = await receiver(certs, () => 'close');
      const res = await test({ url: closing.url, topic: 'printjob_succeeded' });
      expect([res.body.status, res.body.error, res.body.response.start_line]).toEqual([
        'failed',
        'timeout',
        '',
      ]);
    });

    it('verifies certificates: a receiver of a CA not configured is refused before any request', async () => {
      const stranger = await receiver(untrusted, answer(200));
      const res = await test({ url: stranger.url, topic: 'printjob_succeeded' });
      expect([res.body.status, res.body.error]).toEqual(['failed', 'timeout']);
      expect(res.body.detail).toMatch(/certificate/i);
      expect(stranger.requests).toHaveLength(0);
    });

    it('needs url and one topic', async () => {
      const res = await test({ url: 'https://127.0.0.1/x' });
      expect([res.status, res.body.field]).toEqual([400, 'topic']);
    });
  });
});
