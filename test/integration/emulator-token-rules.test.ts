import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, DEMO, demoBasic, type Harness, startHarness, tokenRequest } from './emulator-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.close());

/** Signs claims with the emulator's own active key, as a forger holding it could not, but a bug could. */
async function signed(claims: JWTPayload): Promise<string> {
  const row = h.emulator.app.emulator.store.signingKeys.active()!;
  const file = join(h.dataDir, 'keys', `${row.kid}.private.jwk`);
  const key = await importJWK(JSON.parse(await readFile(file, 'utf8')), 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: row.kid, typ: 'JWT' }).sign(key);
}

async function passwordPair(): Promise<{ access: string; refresh: string }> {
  const res = await tokenRequest(
    h.baseUrl,
    { grant_type: 'password', username: DEMO.user.email, password: DEMO.user.password, scope: 'printing' },
    demoBasic(),
  );
  expect(res.status).toBe(200);
  return { access: res.body['access_token'] as string, refresh: res.body['refresh_token'] as string };
}

const status = (token: string) => call(h.baseUrl, 'GET', '/sfapi/Status/?id=x', token);

describe('access token claims', () => {
  it('carries exp, iat, jti, iss, aud, tk and the family id', async () => {
    const { access } = await passwordPair();
    const claims = JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString('utf8'));
    expect(Object.keys(claims).sort()).toEqual(
      ['aud', 'client_id', 'exp', 'fid', 'iat', 'iss', 'jti', 'org', 'scopes', 'sub', 'tk'].sort(),
    );
    expect(claims.aud).toBe('printrelay-api');
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it('refuses a token signed with the right key that lacks exp, iat, jti, iss, aud or tk', async () => {
    const { access } = await passwordPair();
    const good = JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString('utf8')) as JWTPayload;
    expect((await status(await signed(good))).status).toBe(200);
    for (const missing of ['exp', 'iat', 'jti', 'iss', 'aud', 'tk']) {
      const claims: JWTPayload = { ...good, jti: `${good.jti}-${missing}` };
      delete claims[missing];
      const answer = await status(await signed(claims));
      expect({ missing, status: answer.status }).toEqual({ missing, status: 401 });
    }
    const foreign = await status(await signed({ ...good, jti: 'other-aud', aud: 'someone-else' }));
    expect(foreign.status).toBe(401);
    const kind = await status(await signed({ ...good, jti: 'bad-kind', tk: 'admin' }));
    expect(kind.status).toBe(401);
  });
});

describe('revoking a family revokes its access tokens', () => {
  it('refresh-token reuse: the family’s access tokens stop working at once, even cached ones', async () => {
    const { access, refresh } = await passwordPair();
    expect((await status(access)).status).toBe(200);
    const rotated = await tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token: refresh },
      demoBasic(),
    );
    expect(rotated.status).toBe(200);
    const newAccess = rotated.body['access_token'] as string;
    expect((await status(newAccess)).status).toBe(200);
    const replay = await tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token: refresh },
      demoBasic(),
    );
    expect(replay.status).toBe(400);
    expect(replay.body['error_description']).toBe(
      'the refresh token was already used; every token of this sign-in is revoked',
    );
    for (const token of [access, newAccess]) {
      const answer = await status(token);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toContain('the sign-in of this token was revoked');
    }
    const other = await passwordPair();
    expect((await status(other.access)).status).toBe(200);
  });

  it('/oauth/revoke/ of a refresh token ends the family’s access tokens', async () => {
    const { access, refresh } = await passwordPair();
    expect((await status(access)).status).toBe(200);
    const res = await fetch(`${h.baseUrl}/oauth/revoke/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: demoBasic() },
      body: new URLSearchParams({ token: refresh, token_type_hint: 'refresh_token' }).toString(),
    });
    expect(res.status).toBe(200);
    expect((await status(access)).status).toBe(401);
  });
});
