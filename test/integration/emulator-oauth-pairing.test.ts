/**
 * The pairing-code grant against the real emulator, polled with oauth4webapi as a device would:
 * authorization_pending before binding, slow_down when polled faster than the interval,
 * expired_token after expiry (ManualClock), access_denied when denied, unauthorized_client when a
 * person of another organization bound the code of a single-tenant client (spec C: the token
 * endpoint's error for tenant_mode single), then a normal token response with a refresh token.
 */
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO,
  type OAuthHarness,
  TEST_CLIENTS,
  basic,
  formPost,
  insecure,
  oauthErrorOf,
  startOAuthHarness,
} from './emulator-oauth-harness.js';

let h: OAuthHarness;

beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

async function startPairing(
  id: string = DEMO.client.id,
  secret: string = DEMO.client.secret,
  scope = 'printing printing.connectors',
): Promise<{ status: number; body: Record<string, unknown> }> {
  return formPost(
    `${h.baseUrl}/oauth/pair/`,
    { mode: 'device', scope },
    { authorization: basic(id, secret) },
  );
}

function poll(code: string, id: string = DEMO.client.id, secret: string = DEMO.client.secret) {
  const client: oauth.Client = { client_id: id };
  return oauth
    .genericTokenEndpointRequest(
      h.as,
      client,
      oauth.ClientSecretBasic(secret),
      'pairing_code',
      { pairing_code: code },
      insecure,
    )
    .then((response) => oauth.processGenericTokenEndpointResponse(h.as, client, response));
}

/** Moves the clock past the polling interval, so the next poll is not slow_down. */
function waitInterval(seconds = 5): void {
  h.clock.advance(seconds * 1000);
}

describe('POST /oauth/pair/', () => {
  it('answers a pairing code and an auth_url whose next is the binding page', async () => {
    const res = await startPairing();
    expect(res.status).toBe(200);
    const code = res.body['pairing_code'] as string;
    expect(code).toMatch(/^[A-Z2-9]{10}$/);
    const authUrl = new URL(res.body['auth_url'] as string);
    expect(authUrl.origin).toBe(h.baseUrl);
    expect(authUrl.pathname).toBe('/oauth/login/');
    expect(authUrl.searchParams.get('next')).toBe(`/oauth/authorize/pairing/?pairing_code=${code}`);
    expect(res.body['interval']).toBe(5);
    expect(res.body['expires_in']).toBe(600);
  });

  it.each([
    ['wrong secret', DEMO.client.id, 'nope', 'printing', 401, 'invalid_client'],
    [
      'client without the pairing grant',
      TEST_CLIENTS.noPair.id,
      TEST_CLIENTS.noPair.secret,
      'printing',
      400,
      'unauthorized_client',
    ],
    ['unknown scope', DEMO.client.id, DEMO.client.secret, 'printing everything', 400, 'invalid_scope'],
    ['internal scope', DEMO.client.id, DEMO.client.secret, 'account.admin', 400, 'invalid_scope'],
  ])('%s -> %i %s', async (_name, id, secret, scope, status, error) => {
    const res = await startPairing(id, secret, scope);
    expect(res.status).toBe(status);
    expect(res.body['error']).toBe(error);
  });
});

describe('polling grant_type=pairing_code', () => {
  it('pending, slow_down, then tokens once approvePairing bound the code', async () => {
    const code = (await startPairing()).body['pairing_code'] as string;
    expect(await oauthErrorOf(poll(code))).toBe('authorization_pending');
    expect(await oauthErrorOf(poll(code))).toBe('slow_down');
    // slow_down raised the interval to 10 s: 5 s later is still too fast.
    waitInterval(5);
    expect(await oauthErrorOf(poll(code))).toBe('slow_down');
    waitInterval(15);
    expect(await oauthErrorOf(poll(code))).toBe('authorization_pending');
    h.context.pairings.approvePairing(code, DEMO.user.email);
    waitInterval(20);
    const tokens = await poll(code);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = decodeJwt(tokens.access_token);
    const alice = h.context.store.users.findByEmail(DEMO.user.email)!;
    expect(claims.sub).toBe(alice.id);
    expect(claims['scopes']).toBe('printing printing.connectors');
    expect(claims['tk']).toBe('device');
    // The code is spent; the refresh token rotates like any other.
    waitInterval(20);
    expect(await oauthErrorOf(poll(code))).toBe('invalid_grant');
    const client: oauth.Client = { client_id: DEMO.client.id };
    const refreshed = await oauth.processRefreshTokenResponse(
      h.as,
      client,
      await oauth.refreshTokenGrantRequest(
        h.as,
        client,
        oauth.ClientSecretBasic(DEMO.client.secret),
        tokens.refresh_token!,
        insecure,
      ),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('expired_token once the code outlived its 600 s', async () => {
    const code = (await startPairing()).body['pairing_code'] as string;
    h.clock.advance(600_000);
    expect(await oauthErrorOf(poll(code))).toBe('expired_token');
    expect(() => h.context.pairings.approvePairing(code, DEMO.user.email)).toThrow(/pairing code/);
  });

  it('a single-tenant client refuses a user of another organization: unauthorized_client at the token endpoint', async () => {
    const { id, secret } = TEST_CLIENTS.tenant;
    const code = (await startPairing(id, secret)).body['pairing_code'] as string;
    // Binding answers access_denied (the sign-in side of the rule) ...
    expect(() => h.context.pairings.approvePairing(code, DEMO.otherAdmin.email)).toThrow(/own organization/);
    // ... and the device's poll unauthorized_client, naming the rule; every later poll too.
    const res = await formPost(
      h.as.token_endpoint!,
      { grant_type: 'pairing_code', pairing_code: code },
      { authorization: basic(id, secret) },
    );
    expect(res.status).toBe(400);
    expect(res.body['error']).toBe('unauthorized_client');
    expect(res.body['error_description']).toMatch(/tenant_mode single.*another organization/);
    waitInterval();
    expect(await oauthErrorOf(poll(code, id, secret))).toBe('unauthorized_client');
  });

  it("the demo client is the service's protected client: a user of another organization pairs through it", async () => {
    const code = (await startPairing()).body['pairing_code'] as string;
    h.context.pairings.approvePairing(code, DEMO.otherAdmin.email);
    const tokens = await poll(code);
    const other = h.context.store.users.findByEmail(DEMO.otherAdmin.email)!;
    expect(decodeJwt(tokens.access_token)['org']).toBe(other.organizationId);
  });

  it('a person who denies answers access_denied; a foreign person denying is the tenant rule', async () => {
    const denied = (await startPairing()).body['pairing_code'] as string;
    const alice = h.context.store.users.findByEmail(DEMO.user.email)!;
    h.context.pairings.decide(denied, alice, false);
    expect(await oauthErrorOf(poll(denied))).toBe('access_denied');
    const { id, secret } = TEST_CLIENTS.tenant;
    const foreign = (await startPairing(id, secret)).body['pairing_code'] as string;
    const other = h.context.store.users.findByEmail(DEMO.otherAdmin.email)!;
    expect(() => h.context.pairings.decide(foreign, other, false)).toThrow(/own organization/);
    expect(await oauthErrorOf(poll(foreign, id, secret))).toBe('unauthorized_client');
  });

  it('a multi-tenant client lets any organization in', async () => {
    const { id, secret } = TEST_CLIENTS.multiPair;
    const code = (await startPairing(id, secret, 'printing')).body['pairing_code'] as string;
    // The client belongs to the other organization; a demo user pairs through it.
    h.context.pairings.approvePairing(code, DEMO.user.email);
    const tokens = await poll(code, id, secret);
    const alice = h.context.store.users.findByEmail(DEMO.user.email)!;
    expect(decodeJwt(tokens.access_token)['org']).toBe(alice.organizationId);
    expect(h.context.store.clients.findById(id)!.organizationId).not.toBe(alice.organizationId);
  });

  it('another client cannot redeem the code; a garbage code is refused', async () => {
    const code = (await startPairing()).body['pairing_code'] as string;
    h.context.pairings.approvePairing(code, DEMO.user.email);
    const { id, secret } = TEST_CLIENTS.multiPair;
    expect(await oauthErrorOf(poll(code, id, secret))).toBe('invalid_grant');
    const garbage = await formPost(
      `${h.baseUrl}/oauth/access_token/`,
      { grant_type: 'pairing_code', pairing_code: 'not valid!' },
      { authorization: basic(DEMO.client.id, DEMO.client.secret) },
    );
    expect(garbage.status).toBe(400);
    expect(garbage.body['field']).toBe('pairing_code');
  });

  it('approvePairing names an unknown user or code', () => {
    expect(() => h.context.pairings.approvePairing('ABCDEFGHJK', DEMO.user.email)).toThrow(/pairing code/);
    expect(() => h.context.pairings.approvePairing('ABCDEFGHJK', 'nobody@demo.test')).toThrow(
      /nobody@demo.test/,
    );
  });
});
