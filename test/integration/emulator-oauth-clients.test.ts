/**
 * /v1/oauth-clients/ against the real emulator, one test per rule of the spec's section C
 * (creation, list, read, PATCH, DELETE, visibility, authorization, validation, limits) and the
 * organization-delete rule. Time moves with the harness's ManualClock.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toHttpError } from '../../src/emulator/http/http-errors.js';
import { ConflictError } from '../../src/lib/errors.js';
import { SCOPE_NOT_PERMITTED_MESSAGE } from '../../src/protocol/oauth-scopes.js';
import {
  DEMO,
  type OAuthHarness,
  api,
  basic,
  formPost,
  startOAuthHarness,
  userToken,
} from './emulator-oauth-harness.js';

const PATH = '/v1/oauth-clients/';
let h: OAuthHarness;
let admin: string;

beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});
// Each test gets a fresh hour of the per-admin creation budget and a fresh admin token.
beforeEach(async () => {
  h.clock.advance(3600_000);
  admin = await userToken(h.baseUrl, DEMO.admin);
});

const publicBody = (name = 'App') => ({ name, redirect_urls: ['https://app.example/cb'] });

async function createPublic(name = 'App', token = admin) {
  const res = await api(h.baseUrl, 'POST', `${PATH}public/`, token, publicBody(name));
  expect(res.status).toBe(201);
  return res.body;
}

describe('creation', () => {
  it('public: 201, no secret, authorization_code only, tenant_mode single by default', async () => {
    const res = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, {
      ...publicBody('Photo'),
      external_description: 'Prints photos',
      allowed_scopes: 'printing openid',
      surprise: 'ignored',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      client_id: expect.any(String),
      name: 'Photo',
      external_description: 'Prints photos',
      redirect_urls: ['https://app.example/cb'],
      allowed_scopes: ['printing', 'openid'],
      grant_types: ['authorization_code'],
      client_type: 'public',
      tenant_mode: 'single',
    });
  });

  it('public: grant_types is not accepted', async () => {
    const res = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, {
      ...publicBody(),
      grant_types: ['authorization_code'],
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('grant_types');
  });

  it('confidential: the secret is returned once, stored hashed, and authenticates', async () => {
    const res = await api(h.baseUrl, 'POST', `${PATH}confidential/`, admin, {
      name: 'Kiosk',
      grant_types: ['pairing_code'],
    });
    expect(res.status).toBe(201);
    const { client_id: id, client_secret: secret } = res.body;
    expect(secret).toMatch(/^[\w-]{40,}$/);
    expect(res.body.redirect_urls).toEqual([]);
    const read = await api(h.baseUrl, 'GET', `${PATH}${id}/`, admin);
    expect(read.body.client_secret).toBeUndefined();
    const row = h.context.store.db
      .prepare('SELECT secret_hash FROM oauth_clients WHERE client_id = ?')
      .get(id) as {
      secret_hash: string;
    };
    expect(row.secret_hash).toMatch(/^scrypt\$/);
    expect(row.secret_hash).not.toContain(secret);
    const pair = await formPost(
      `${h.baseUrl}/oauth/pair/`,
      { mode: 'device', scope: 'printing' },
      { authorization: basic(id, secret) },
    );
    expect(pair.status).toBe(200);
    const wrong = await formPost(
      `${h.baseUrl}/oauth/pair/`,
      { mode: 'device' },
      { authorization: basic(id, `${secret}x`) },
    );
    expect(wrong.status).toBe(401);
  });

  it.each([
    ['grant_types missing', { name: 'X', redirect_urls: ['https://a.example/cb'] }, 'grant_types'],
    [
      'two grant types',
      {
        name: 'X',
        grant_types: ['authorization_code', 'pairing_code'],
        redirect_urls: ['https://a.example/'],
      },
      'grant_types',
    ],
    ['password grant', { name: 'X', grant_types: ['password'] }, 'grant_types'],
    [
      'authorization_code without redirect_urls',
      { name: 'X', grant_types: ['authorization_code'] },
      'redirect_urls',
    ],
    ['name missing', { grant_types: ['pairing_code'] }, 'name'],
    ['tenant_mode other', { name: 'X', grant_types: ['pairing_code'], tenant_mode: 'all' }, 'tenant_mode'],
  ])('confidential: %s -> 400', async (_name, body, field) => {
    const res = await api(h.baseUrl, 'POST', `${PATH}confidential/`, admin, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});

describe('validation of redirect_urls and allowed_scopes over HTTP', () => {
  const many = Array.from({ length: 21 }, (_, i) => `https://app.example/cb${i}`);
  it.each([
    ['http on a non-loopback host', { redirect_urls: ['http://app.example/cb'] }, 'redirect_urls[0]'],
    ['a wildcard', { redirect_urls: ['https://*.example/cb'] }, 'redirect_urls[0]'],
    ['a fragment', { redirect_urls: ['https://app.example/cb#x'] }, 'redirect_urls[0]'],
    [
      'http on 127.0.0.1 (the exception is http://localhost)',
      { redirect_urls: ['http://127.0.0.1/cb'] },
      'redirect_urls[0]',
    ],
    ['userinfo', { redirect_urls: ['https://user@app.example/cb'] }, 'redirect_urls[0]'],
    ['a single-word scheme', { redirect_urls: ['myapp:/cb'] }, 'redirect_urls[0]'],
    ['21 URLs', { redirect_urls: many }, 'redirect_urls'],
    ['an unknown scope', { allowed_scopes: 'printing admin' }, 'allowed_scopes'],
    ['a scope string over 2048 characters', { allowed_scopes: 'printing '.repeat(300) }, 'allowed_scopes'],
  ])('%s -> 400', async (_name, override, field) => {
    const res = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, { ...publicBody(), ...override });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it.each([['account.admin'], ['printing ACCOUNT.users'], ['ａｃｃｏｕｎｔ．ｓｅｃｒｅｔ']])(
    'internal scope %s -> 400 with the generic message, value not echoed',
    async (scopes) => {
      const res = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, {
        ...publicBody(),
        allowed_scopes: scopes,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(SCOPE_NOT_PERMITTED_MESSAGE);
      expect(JSON.stringify(res.body)).not.toMatch(/admin|users|secret|ｓ/);
    },
  );

  it('NFKC: full-width scopes and hosts are normalized, then accepted', async () => {
    const res = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, {
      name: 'Ｗｉｄｅ',
      redirect_urls: ['https://ａｐｐ.example/cb', 'http://localhost:8123/cb', 'com.example.app:/cb'],
      allowed_scopes: 'ｐｒｉｎｔｉｎｇ account',
    });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Wide');
    expect(res.body.allowed_scopes).toEqual(['printing', 'account']);
    expect(res.body.redirect_urls[0]).toBe('https://app.example/cb');
  });
});

describe('authorization', () => {
  it('401 without a token on every route', async () => {
    for (const [method, path] of [
      ['GET', PATH],
      ['POST', `${PATH}public/`],
      ['GET', `${PATH}x/`],
      ['PATCH', `${PATH}x/`],
      ['DELETE', `${PATH}x/`],
    ] as const) {
      const res = await api(
        h.baseUrl,
        method,
        path,
        undefined,
        method === 'PATCH' || method === 'POST' ? {} : undefined,
      );
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('403 for a user who is not an organization admin, and for a token without the account scope', async () => {
    const user = await userToken(h.baseUrl, DEMO.user);
    expect((await api(h.baseUrl, 'GET', PATH, user)).status).toBe(403);
    expect((await api(h.baseUrl, 'POST', `${PATH}public/`, user, publicBody())).status).toBe(403);
    const printingOnly = await userToken(h.baseUrl, DEMO.admin, 'printing');
    const res = await api(h.baseUrl, 'GET', PATH, printingOnly);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
  });
});

describe('list, read, visibility', () => {
  it('pagination envelope; order created desc then client_id; only the list fields', async () => {
    const first = await createPublic('first');
    h.clock.advance(1000);
    const tieA = await createPublic('tie-a');
    const tieB = await createPublic('tie-b');
    const res = await api(h.baseUrl, 'GET', `${PATH}?limit=2`, admin);
    expect(res.status).toBe(200);
    const ties = [tieA.client_id, tieB.client_id].sort();
    expect(res.body.results.map((c: { client_id: string }) => c.client_id)).toEqual(ties);
    expect(Object.keys(res.body.results[0]).sort()).toEqual([
      'client_id',
      'client_type',
      'grant_types',
      'name',
      'tenant_mode',
    ]);
    expect(res.body.previous).toBeNull();
    expect(new URL(res.body.next).searchParams.get('offset')).toBe('2');
    const page2 = await api(
      h.baseUrl,
      'GET',
      new URL(res.body.next).pathname + new URL(res.body.next).search,
      admin,
    );
    // Clients of earlier tests are older (the clock moves an hour per test): `first` comes next.
    expect(page2.body.results[0].client_id).toBe(first.client_id);
    expect(page2.body.count).toBe(res.body.count);
  });

  it('legacy, protected and partner-scoped clients are hidden and 404 on direct access', async () => {
    const org = h.context.store.organizations.findByName(DEMO.organization)!;
    const base = {
      organizationId: org.id,
      secretHash: null,
      name: 'hidden',
      externalDescription: '',
      clientType: 'public' as const,
      grantTypes: ['authorization_code'],
      redirectUrls: ['https://a.example/'],
      allowedScopes: [],
    };
    const now = h.clock.now();
    h.context.store.clients.create(
      { ...base, clientId: 'legacy-1', tenantMode: null, protected: false },
      now,
    );
    h.context.store.clients.create(
      { ...base, clientId: 'partner-1', tenantMode: 'single', protected: false, partnerScoped: true },
      now,
    );
    const list = await api(h.baseUrl, 'GET', `${PATH}?limit=1000`, admin);
    const ids = list.body.results.map((c: { client_id: string }) => c.client_id);
    for (const hidden of ['legacy-1', 'partner-1', DEMO.client.id]) {
      expect(ids).not.toContain(hidden);
      expect((await api(h.baseUrl, 'GET', `${PATH}${hidden}/`, admin)).status).toBe(404);
      expect((await api(h.baseUrl, 'PATCH', `${PATH}${hidden}/`, admin, { name: 'x' })).status).toBe(404);
      expect((await api(h.baseUrl, 'DELETE', `${PATH}${hidden}/`, admin)).status).toBe(404);
    }
  });

  it("another organization's client is 404 and not listed", async () => {
    const mine = await createPublic('mine');
    const other = await userToken(h.baseUrl, DEMO.otherAdmin);
    expect((await api(h.baseUrl, 'GET', `${PATH}${mine.client_id}/`, other)).status).toBe(404);
    expect((await api(h.baseUrl, 'PATCH', `${PATH}${mine.client_id}/`, other, { name: 'x' })).status).toBe(
      404,
    );
    expect((await api(h.baseUrl, 'DELETE', `${PATH}${mine.client_id}/`, other)).status).toBe(404);
    const list = await api(h.baseUrl, 'GET', `${PATH}?limit=1000`, other);
    expect(list.body.results.map((c: { client_id: string }) => c.client_id)).not.toContain(mine.client_id);
  });

  it('read returns the current configuration', async () => {
    const created = await createPublic('readme');
    const res = await api(h.baseUrl, 'GET', `${PATH}${created.client_id}/`, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });
});

describe('PATCH', () => {
  it('changes name, external_description, redirect_urls and allowed_scopes', async () => {
    const created = await createPublic('before');
    const res = await api(h.baseUrl, 'PATCH', `${PATH}${created.client_id}/`, admin, {
      name: 'after',
      external_description: 'new words',
      redirect_urls: ['https://new.example/cb'],
      allowed_scopes: 'printing',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'after',
      external_description: 'new words',
      redirect_urls: ['https://new.example/cb'],
      allowed_scopes: ['printing'],
      tenant_mode: 'single',
    });
    expect((await api(h.baseUrl, 'GET', `${PATH}${created.client_id}/`, admin)).body.name).toBe('after');
  });

  it.each([
    [{ tenant_mode: 'multi' }, 'tenant_mode'],
    [{ client_type: 'confidential' }, 'client_type'],
    [{ grant_types: ['authorization_code'] }, 'grant_types'],
    [{ client_secret: 'x' }, 'client_secret'],
    [{ name: 'ok', color: 'blue' }, 'color'],
    [{ redirect_urls: [] }, 'redirect_urls'],
    [{ allowed_scopes: 'account.internal' }, 'allowed_scopes'],
  ])('PATCH %j -> 400, nothing changed', async (body, field) => {
    const created = await createPublic('fixed');
    const res = await api(h.baseUrl, 'PATCH', `${PATH}${created.client_id}/`, admin, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await api(h.baseUrl, 'GET', `${PATH}${created.client_id}/`, admin)).body).toEqual(created);
  });
});

describe('DELETE', () => {
  it('204; then 404; no new token or refresh; issued access tokens live until expiry', async () => {
    const res = await api(h.baseUrl, 'POST', `${PATH}confidential/`, admin, {
      name: 'Gone',
      grant_types: ['pairing_code'],
    });
    const { client_id: id, client_secret: secret } = res.body;
    const pair = await formPost(
      `${h.baseUrl}/oauth/pair/`,
      { scope: 'printing account' },
      { authorization: basic(id, secret) },
    );
    const code = pair.body['pairing_code'] as string;
    h.context.pairings.approvePairing(code, DEMO.admin.email);
    const tokens = await formPost(
      `${h.baseUrl}/oauth/access_token/`,
      { grant_type: 'pairing_code', pairing_code: code },
      { authorization: basic(id, secret) },
    );
    expect(tokens.status).toBe(200);
    expect((await api(h.baseUrl, 'DELETE', `${PATH}${id}/`, admin)).status).toBe(204);
    expect((await api(h.baseUrl, 'GET', `${PATH}${id}/`, admin)).status).toBe(404);
    const refresh = await formPost(
      `${h.baseUrl}/oauth/access_token/`,
      { grant_type: 'refresh_token', refresh_token: tokens.body['refresh_token'] as string },
      { authorization: basic(id, secret) },
    );
    expect(refresh.status).toBe(401);
    const again = await formPost(
      `${h.baseUrl}/oauth/pair/`,
      { scope: 'printing' },
      { authorization: basic(id, secret) },
    );
    expect(again.status).toBe(401);
    const access = tokens.body['access_token'] as string;
    expect((await api(h.baseUrl, 'GET', '/v1/users/me/', access)).status).toBe(200);
    h.clock.set((decodeJwt(access).exp as number) * 1000);
    expect((await api(h.baseUrl, 'GET', '/v1/users/me/', access)).status).toBe(401);
  });
});

describe('limits', () => {
  it('10 creations per admin per hour, then 429 with Retry-After; the window slides with the clock', async () => {
    for (let i = 0; i < 10; i++) await createPublic(`burst-${i}`);
    h.clock.advance(600_000);
    const over = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, publicBody('eleventh'));
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('3000');
    // Another admin (of another organization) has their own budget.
    const other = await userToken(h.baseUrl, DEMO.otherAdmin);
    expect((await api(h.baseUrl, 'POST', `${PATH}public/`, other, publicBody())).status).toBe(201);
    h.clock.advance(3000_000);
    const fresh = await userToken(h.baseUrl, DEMO.admin);
    expect((await api(h.baseUrl, 'POST', `${PATH}public/`, fresh, publicBody('later'))).status).toBe(201);
  });

  it('100 API-created clients per organization: 429 at once without Retry-After; a delete frees a place', async () => {
    const org = h.context.store.organizations.findByName(DEMO.otherOrganization)!;
    const other = await userToken(h.baseUrl, DEMO.otherAdmin);
    const existing = h.context.store.clients.countApiCreated(org.id);
    for (let i = existing; i < 100; i++) {
      h.context.store.clients.create(
        {
          clientId: `bulk-${i}`,
          organizationId: org.id,
          secretHash: null,
          name: `bulk ${i}`,
          externalDescription: '',
          clientType: 'public',
          grantTypes: ['authorization_code'],
          redirectUrls: ['https://a.example/'],
          allowedScopes: [],
          tenantMode: 'single',
          protected: false,
          origin: 'api',
        },
        h.clock.now(),
      );
    }
    const full = await api(h.baseUrl, 'POST', `${PATH}public/`, other, publicBody());
    expect(full.status).toBe(429);
    expect(full.headers['retry-after']).toBeUndefined();
    expect((await api(h.baseUrl, 'DELETE', `${PATH}bulk-99/`, other)).status).toBe(204);
    expect((await api(h.baseUrl, 'POST', `${PATH}public/`, other, publicBody())).status).toBe(201);
  });
});

describe('assertOrganizationDeletable', () => {
  it('409 tenant_mode_multi_clients_exist while the organization owns a live multi-tenant client', async () => {
    const org = h.context.store.organizations.findByName(DEMO.organization)!;
    const clients = h.context.oauthClients;
    const multi = await api(h.baseUrl, 'POST', `${PATH}public/`, admin, {
      ...publicBody('multi'),
      tenant_mode: 'multi',
    });
    const refusal = (() => {
      try {
        clients.assertOrganizationDeletable(org.id);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ConflictError);
    expect(toHttpError(refusal)).toMatchObject({
      status: 409,
      body: { error: 'tenant_mode_multi_clients_exist' },
    });
    await api(h.baseUrl, 'DELETE', `${PATH}${multi.body.client_id}/`, admin);
    expect(() => clients.assertOrganizationDeletable(org.id)).not.toThrow();
  });
});
