/**
 * The OAuth server's other endpoints against the real emulator, called as an app would with
 * oauth4webapi: discovery (/.well-known/openid-configuration) and the JWKS that verifies access
 * tokens, POST /oauth/revoke/ (RFC 7009), GET /v1/users/me/, client_credentials, and the scope
 * each API checks.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO,
  type OAuthHarness,
  TEST_CLIENTS,
  api,
  insecure,
  oauthErrorOf,
  startOAuthHarness,
  userToken,
} from './emulator-oauth-harness.js';

let h: OAuthHarness;
const demo: oauth.Client = { client_id: DEMO.client.id };
const demoAuth = oauth.ClientSecretBasic(DEMO.client.secret);

beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

async function passwordTokens(
  scope: string,
  clientId: string = DEMO.client.id,
  clientSecret: string = DEMO.client.secret,
): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(h.as.token_endpoint!, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'password',
      username: DEMO.admin.email,
      password: DEMO.admin.password,
      scope,
    }),
  });
  return (await res.json()) as { access_token: string; refresh_token: string };
}

async function revoke(token: string, hint?: string): Promise<void> {
  const extra = hint ? new URLSearchParams({ token_type_hint: hint }) : undefined;
  const response = await oauth.revocationRequest(h.as, demo, demoAuth, token, {
    ...insecure,
    ...(extra ? { additionalParameters: extra } : {}),
  });
  await oauth.processRevocationResponse(response);
}

describe('discovery and JWKS', () => {
  it('the metadata names every endpoint, S256 only, and the issuer of the tokens', async () => {
    expect(h.as.issuer).toBe(h.baseUrl);
    expect(h.as.code_challenge_methods_supported).toEqual(['S256']);
    expect(h.as.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'pairing_code', 'client_credentials']),
    );
    expect(h.as.revocation_endpoint).toBe(`${h.baseUrl}/oauth/revoke/`);
    const { access_token } = await passwordTokens('printing');
    const jwks = createRemoteJWKSet(new URL(h.as.jwks_uri!));
    const { payload, protectedHeader } = await jwtVerify(access_token, jwks, { issuer: h.as.issuer });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload['scopes']).toBe('printing');
  });
});

describe('POST /oauth/revoke/', () => {
  it('revoking a refresh token revokes its family: no refresh succeeds afterwards', async () => {
    const tokens = await passwordTokens('printing');
    await revoke(tokens.refresh_token, 'refresh_token');
    const request = oauth.refreshTokenGrantRequest(h.as, demo, demoAuth, tokens.refresh_token, insecure);
    expect(await oauthErrorOf(request.then((r) => oauth.processRefreshTokenResponse(h.as, demo, r)))).toBe(
      'invalid_grant',
    );
  });

  it('revoking an access token refuses it at once, with or without a hint', async () => {
    for (const hint of ['access_token', undefined]) {
      const { access_token } = await passwordTokens('account');
      expect((await api(h.baseUrl, 'GET', '/v1/users/me/', access_token)).status).toBe(200);
      await revoke(access_token, hint);
      const res = await api(h.baseUrl, 'GET', '/v1/users/me/', access_token);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/invalid_token/);
    }
  });

  it('unknown tokens and tokens of another client answer 200 and change nothing', async () => {
    await revoke('no-such-token');
    const other = await userToken(h.baseUrl, DEMO.admin); // issued to the test-login client
    await revoke(other, 'access_token');
    expect((await api(h.baseUrl, 'GET', '/v1/users/me/', other)).status).toBe(200);
  });

  it('needs client authentication', async () => {
    const res = await fetch(h.as.revocation_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
    });
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/users/me/', () => {
  it("returns the caller's own account user for the account scope", async () => {
    const token = await userToken(h.baseUrl, DEMO.user, 'account');
    const res = await api(h.baseUrl, 'GET', '/v1/users/me/', token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: DEMO.user.email,
      first_name: 'Alice',
      display_name: 'Alice Example',
      roles: ['user'],
    });
    expect(res.body.id).toBe(decodeJwt(token).sub);
  });

  it('answers a printing-only user token too, with or without the trailing slash; 401 without a token', async () => {
    expect((await api(h.baseUrl, 'GET', '/v1/users/me/', undefined)).status).toBe(401);
    const printing = await userToken(h.baseUrl, DEMO.user, 'printing');
    for (const path of ['/v1/users/me/', '/v1/users/me']) {
      const res = await api(h.baseUrl, 'GET', path, printing);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: DEMO.user.email, display_name: 'Alice Example' });
    }
  });
});

describe('scopes per API', () => {
  it.each([
    ['/sfapi/GetPrinter/', 'printing', 'account'],
    ['/v1/oauth-clients/', 'account', 'printing'],
  ])('%s needs %s', async (path, needed, other) => {
    const ok = await userToken(h.baseUrl, DEMO.admin, needed);
    const wrong = await userToken(h.baseUrl, DEMO.admin, other);
    expect((await api(h.baseUrl, 'GET', path, ok)).status).toBe(200);
    expect((await api(h.baseUrl, 'GET', path, wrong)).status).toBe(403);
  });
});

describe('client_credentials', () => {
  const machine: oauth.Client = { client_id: TEST_CLIENTS.machine.id };
  const auth = oauth.ClientSecretBasic(TEST_CLIENTS.machine.secret);

  it("a token for the client's organization, without a refresh token", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      h.as,
      machine,
      auth,
      new URLSearchParams({ scope: 'printing' }),
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(h.as, machine, response);
    expect(tokens.refresh_token).toBeUndefined();
    const claims = decodeJwt(tokens.access_token);
    const org = h.context.store.organizations.findByName(DEMO.organization)!;
    expect(claims).toMatchObject({
      sub: TEST_CLIENTS.machine.id,
      org: org.id,
      tk: 'client',
      scopes: 'printing',
    });
  });

  it('identity scopes need a user; a client without the grant is unauthorized_client', async () => {
    const idScope = oauth.clientCredentialsGrantRequest(
      h.as,
      machine,
      auth,
      new URLSearchParams({ scope: 'openid' }),
      insecure,
    );
    expect(
      await oauthErrorOf(idScope.then((r) => oauth.processClientCredentialsResponse(h.as, machine, r))),
    ).toBe('invalid_scope');
    const noGrant: oauth.Client = { client_id: TEST_CLIENTS.noPair.id };
    const refused = oauth.clientCredentialsGrantRequest(
      h.as,
      noGrant,
      oauth.ClientSecretBasic(TEST_CLIENTS.noPair.secret),
      new URLSearchParams(),
      insecure,
    );
    expect(
      await oauthErrorOf(refused.then((r) => oauth.processClientCredentialsResponse(h.as, noGrant, r))),
    ).toBe('unauthorized_client');
  });
});

describe('tenant rules at the token endpoint', () => {
  it('refresh through a single-tenant client fails once the user is in another organization', async () => {
    const { id, secret } = TEST_CLIENTS.tenant;
    const tenantClient: oauth.Client = { client_id: id };
    const tokens = await passwordTokens('printing', id, secret);
    const other = h.context.store.organizations.findByName(DEMO.otherOrganization)!;
    const admin = h.context.store.users.findByEmail(DEMO.admin.email)!;
    h.context.store.db.prepare('UPDATE users SET organization_id = ? WHERE id = ?').run(other.id, admin.id);
    try {
      const auth = oauth.ClientSecretBasic(secret);
      const request = oauth.refreshTokenGrantRequest(
        h.as,
        tenantClient,
        auth,
        tokens.refresh_token,
        insecure,
      );
      expect(
        await oauthErrorOf(request.then((r) => oauth.processRefreshTokenResponse(h.as, tenantClient, r))),
      ).toBe('unauthorized_client');
    } finally {
      h.context.store.db
        .prepare('UPDATE users SET organization_id = ? WHERE id = ?')
        .run(admin.organizationId, admin.id);
    }
  });
});
