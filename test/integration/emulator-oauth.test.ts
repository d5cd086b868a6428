import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import {
  call,
  DEMO,
  demoBasic,
  type Harness,
  passwordToken,
  startHarness,
  tokenRequest,
} from './emulator-harness.js';

let h: Harness;

beforeAll(async () => {
  const seed = defaultEmulatorSeed();
  seed.organizations[0]!.oauth_clients.push(
    {
      client_id: 'narrow-app',
      client_secret: 'narrow-secret',
      name: 'Narrow',
      external_description: '',
      client_type: 'confidential',
      grant_types: ['password', 'refresh_token'],
      redirect_urls: [],
      allowed_scopes: ['printing'],
      tenant_mode: 'single',
      protected: true,
    },
    {
      client_id: 'single-app',
      client_secret: 'single-secret',
      name: 'Single, registered by the organization',
      external_description: '',
      client_type: 'confidential',
      grant_types: ['password'],
      redirect_urls: [],
      allowed_scopes: [],
      tenant_mode: 'single',
      protected: false,
    },
    {
      client_id: 'multi-app',
      client_secret: 'multi-secret',
      name: 'Multi',
      external_description: '',
      client_type: 'confidential',
      grant_types: ['password'],
      redirect_urls: [],
      allowed_scopes: [],
      tenant_mode: 'multi',
      protected: true,
    },
    {
      client_id: 'public-app',
      client_secret: '',
      name: 'Public',
      external_description: '',
      client_type: 'public',
      grant_types: ['password'],
      redirect_urls: [],
      allowed_scopes: [],
      tenant_mode: 'single',
      protected: true,
    },
  );
  h = await startHarness({ seed });
});
afterAll(async () => {
  await h.close();
});

const password = (extra: Record<string, string> = {}) => ({
  grant_type: 'password',
  username: DEMO.user.email,
  password: DEMO.user.password,
  scope: 'printing',
  ...extra,
});

describe('password grant', () => {
  it('issues an RS256 token whose claims verify against the JWKS', async () => {
    const res = await tokenRequest(h.baseUrl, password({ scope: 'printing reporting' }), demoBasic());
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'printing reporting' });
    expect(typeof res.body['refresh_token']).toBe('string');
    const jwks = createRemoteJWKSet(new URL(`${h.baseUrl}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(res.body['access_token'] as string, jwks, {
      currentDate: new Date(h.clock.now()),
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ scopes: 'printing reporting', tk: 'user', client_id: DEMO.client.id });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.iat).toBe(Math.floor(h.clock.now() / 1000));
    expect(typeof payload.sub).toBe('string');
    expect(typeof payload['org']).toBe('string');
    expect(typeof payload.jti).toBe('string');
    expect(typeof payload.iss).toBe('string');
  });

  it('accepts client_id and client_secret as form fields, and a public client with no secret', async () => {
    const form = await tokenRequest(
      h.baseUrl,
      password({ client_id: DEMO.client.id, client_secret: DEMO.client.secret }),
    );
    expect(form.status).toBe(200);
    const pub = await tokenRequest(h.baseUrl, password(), demoBasic('public-app', ''));
    expect(pub.status).toBe(200);
  });

  it("the demo client, protected (the service's own), serves users of every organization", async () => {
    const other = { username: DEMO.otherAdmin.email, password: DEMO.otherAdmin.password };
    const res = await tokenRequest(h.baseUrl, password(other), demoBasic());
    expect(res.status).toBe(200);
    const otherOrg = h.emulator.app.emulator.store.organizations.findByName(DEMO.otherOrganization)!;
    expect(decodeJwt(res.body['access_token'] as string)['org']).toBe(otherOrg.id);
  });

  it('a multi-tenant client serves users of every organization', async () => {
    const other = { username: DEMO.otherAdmin.email, password: DEMO.otherAdmin.password };
    const res = await tokenRequest(h.baseUrl, password(other), demoBasic('multi-app', 'multi-secret'));
    expect(res.status).toBe(200);
    const claims = decodeJwt(res.body['access_token'] as string);
    const otherOrg = h.emulator.app.emulator.store.organizations.findByName(DEMO.otherOrganization)!;
    expect(claims['org']).toBe(otherOrg.id);
  });

  it('grants every requestable scope when none is asked for', async () => {
    const all = await tokenRequest(h.baseUrl, password({ scope: '' }), demoBasic());
    expect((all.body['scope'] as string).split(' ').sort()).toEqual(
      [
        'account',
        'email',
        'openid',
        'printing',
        'printing.connectors',
        'profile',
        'reporting',
        'webhooks',
        'webhooks.readonly',
      ].sort(),
    );
    const narrow = await tokenRequest(
      h.baseUrl,
      password({ scope: '' }),
      demoBasic('narrow-app', 'narrow-secret'),
    );
    expect(narrow.body['scope']).toBe('printing');
  });

  it.each([
    ['wrong secret', password(), demoBasic(DEMO.client.id, 'nope'), 401, 'invalid_client'],
    ['unknown client', password(), demoBasic('ghost', 'x'), 401, 'invalid_client'],
    ['no client auth', password(), undefined, 401, 'invalid_client'],
    ['public client with a secret', password(), demoBasic('public-app', 'x'), 401, 'invalid_client'],
    ['wrong password', password({ password: 'wrong' }), demoBasic(), 400, 'invalid_grant'],
    ['unknown user', password({ username: 'nobody@demo.test' }), demoBasic(), 400, 'invalid_grant'],
    [
      'user of another organization at a single-tenant client',
      password({ username: DEMO.otherAdmin.email, password: DEMO.otherAdmin.password }),
      demoBasic('single-app', 'single-secret'),
      400,
      'unauthorized_client',
    ],
    [
      'scope the client may not request',
      password({ scope: 'printing webhooks' }),
      demoBasic('narrow-app', 'narrow-secret'),
      400,
      'invalid_scope',
    ],
    ['unknown scope', password({ scope: 'printing admin.everything' }), demoBasic(), 400, 'invalid_scope'],
    [
      'grant the client may not use',
      { grant_type: 'refresh_token', refresh_token: 'x' },
      demoBasic('public-app', ''),
      400,
      'unauthorized_client',
    ],
    ['unsupported grant', { grant_type: 'magic' }, demoBasic(), 400, 'unsupported_grant_type'],
    ['missing grant_type', { username: 'a' }, demoBasic(), 400, 'invalid_request'],
  ] as const)('%s -> %i %s', async (_name, form, auth, status, error) => {
    const res = await tokenRequest(h.baseUrl, form as Record<string, string>, auth);
    expect(res.status).toBe(status);
    expect(res.body['error']).toBe(error);
    expect(typeof res.body['error_description']).toBe('string');
    if (error === 'invalid_client') expect(res.headers['www-authenticate']).toMatch(/^Basic/);
  });

  it.each(['username', 'password'])('names the missing field %s', async (field) => {
    const form: Record<string, string> = password();
    delete form[field];
    const res = await tokenRequest(h.baseUrl, form, demoBasic());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: `${field}: required` });
  });
});

describe('refresh_token grant', () => {
  async function signIn(): Promise<Record<string, unknown>> {
    return (await tokenRequest(h.baseUrl, password({ scope: 'printing reporting' }), demoBasic())).body;
  }
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    tokenRequest(h.baseUrl, { grant_type: 'refresh_token', refresh_token: token, ...extra }, demoBasic());

  it('rotates: each refresh returns a new refresh token and spends the old one', async () => {
    const first = await signIn();
    const second = await refresh(first['refresh_token'] as string);
    expect(second.status).toBe(200);
    expect(second.body['refresh_token']).not.toBe(first['refresh_token']);
    expect(second.body['scope']).toBe('printing reporting');
    const third = await refresh(second.body['refresh_token'] as string, { scope: 'printing' });
    expect(third.status).toBe(200);
    expect(third.body['scope']).toBe('printing');
  });

  it('reuse of a spent token revokes the whole family', async () => {
    const first = await signIn();
    const second = await refresh(first['refresh_token'] as string);
    const replay = await refresh(first['refresh_token'] as string);
    expect(replay.status).toBe(400);
    expect(replay.body['error']).toBe('invalid_grant');
    const afterRevoke = await refresh(second.body['refresh_token'] as string);
    expect(afterRevoke.status).toBe(400);
    expect(afterRevoke.body['error']).toBe('invalid_grant');
    // Another sign-in (another family) is unaffected.
    const other = await signIn();
    expect((await refresh(other['refresh_token'] as string)).status).toBe(200);
  });

  it('refuses a wider scope than the original grant, an unknown token and another client', async () => {
    const first = await signIn();
    expect(
      (await refresh(first['refresh_token'] as string, { scope: 'printing webhooks' })).body['error'],
    ).toBe('invalid_scope');
    expect((await refresh('not-a-token')).body['error']).toBe('invalid_grant');
    const other = await tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token: first['refresh_token'] as string },
      demoBasic('narrow-app', 'narrow-secret'),
    );
    expect(other.body['error']).toBe('invalid_grant');
    expect((await refresh('')).body).toMatchObject({
      error: 'invalid_request',
      error_description: 'refresh_token: required',
    });
  });

  it('refuses a refresh token past its lifetime (injected clock)', async () => {
    const first = await signIn();
    h.clock.advance(31 * 24 * 3600 * 1000);
    const res = await refresh(first['refresh_token'] as string);
    expect(res.status).toBe(400);
    expect(res.body['error_description']).toMatch(/expired/);
  });
});

describe('bearer checks', () => {
  it('401 invalid_token without a token, with garbage, and after expiry; 403 for a missing scope', async () => {
    const noToken = await call(h.baseUrl, 'GET', '/printing/v1/printers/', undefined);
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    const garbage = await call(h.baseUrl, 'GET', '/printing/v1/printers/', 'abc.def.ghi');
    expect(garbage.status).toBe(401);

    const reporting = await passwordToken(h.baseUrl, 'reporting');
    const forbidden = await call(h.baseUrl, 'GET', '/printing/v1/printers/', reporting);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe('insufficient_scope');
    expect(forbidden.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);

    const token = await passwordToken(h.baseUrl, 'printing');
    expect((await call(h.baseUrl, 'GET', '/printing/v1/printers/', token)).status).toBe(200);
    h.clock.advance(3601 * 1000);
    const expired = await call(h.baseUrl, 'GET', '/printing/v1/printers/', token);
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toMatch(/expired/);
  });

  it('a token of a deleted client is refused new tokens', async () => {
    const first = (await tokenRequest(h.baseUrl, password(), demoBasic('narrow-app', 'narrow-secret'))).body;
    h.emulator.app.emulator.store.clients.markDeleted('narrow-app', h.clock.now());
    expect((await tokenRequest(h.baseUrl, password(), demoBasic('narrow-app', 'narrow-secret'))).status).toBe(
      401,
    );
    const res = await tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token: first['refresh_token'] as string },
      demoBasic('narrow-app', 'narrow-secret'),
    );
    expect(res.body['error']).toBe('invalid_client');
    expect(decodeJwt(first['access_token'] as string)['client_id']).toBe('narrow-app');
  });
});
