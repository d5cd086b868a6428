/**
 * The authorization code grant against the real emulator: the app side with oauth4webapi
 * (PKCE S256 for a public client, client_secret_basic for a confidential one, ID token checks),
 * the person's side by submitting the server-rendered sign-in and consent forms with a cookie
 * jar. RFC 6749 errors: error page when the redirect URI is not usable, redirect with `error`
 * otherwise; single-use, short-lived codes bound to redirect_uri and PKCE; tenant rules.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO,
  FormBrowser,
  type OAuthHarness,
  api,
  basic,
  formPost,
  insecure,
  oauthErrorOf,
  startOAuthHarness,
  userToken,
} from './emulator-oauth-harness.js';

const REDIRECT = 'http://localhost/callback';
let h: OAuthHarness;
let publicClient: oauth.Client;
let confidential: { client: oauth.Client; secret: string };
let multiClient: oauth.Client;

beforeAll(async () => {
  h = await startOAuthHarness();
  const admin = await userToken(h.baseUrl, DEMO.admin);
  const create = async (kind: string, body: Record<string, unknown>) => {
    const res = await api(h.baseUrl, 'POST', `/v1/oauth-clients/${kind}/`, admin, body);
    expect(res.status).toBe(201);
    return res.body as { client_id: string; client_secret?: string };
  };
  const pub = await create('public', {
    name: 'Photo App',
    external_description: 'Prints your photos',
    redirect_urls: [REDIRECT],
    allowed_scopes: 'printing openid profile email',
  });
  publicClient = { client_id: pub.client_id, token_endpoint_auth_method: 'none' };
  const conf = await create('confidential', {
    name: 'Server App',
    grant_types: ['authorization_code'],
    redirect_urls: ['https://app.example/cb'],
  });
  confidential = { client: { client_id: conf.client_id }, secret: conf.client_secret! };
  const multi = await create('public', {
    name: 'Multi App',
    redirect_urls: [REDIRECT],
    tenant_mode: 'multi',
  });
  multiClient = { client_id: multi.client_id };
});
afterAll(async () => {
  await h.close();
});

interface Pkce {
  verifier: string;
  challenge: string;
}

async function pkce(): Promise<Pkce> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

function authorizeUrl(params: Record<string, string>): string {
  const url = new URL(h.as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

function publicParams(p: Pkce, extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: 'code',
    client_id: publicClient.client_id,
    redirect_uri: REDIRECT,
    scope: 'printing openid email profile',
    state: 'st-1',
    nonce: 'n-1',
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

/** Signs in and approves; returns the final redirect Location. */
async function signInAndApprove(
  browser: FormBrowser,
  url: string,
  user: { email: string; password: string } = DEMO.user,
): Promise<string> {
  const signIn = await browser.get(url);
  expect(signIn.status).toBe(200);
  expect(signIn.html).toContain('Sign in');
  const consent = await browser.submit(signIn.html, { email: user.email, password: user.password });
  if (consent.location) return consent.location;
  expect(consent.html).toContain('Approve');
  const done = await browser.submit(consent.html, { decision: 'approve' });
  expect(done.status).toBe(303);
  return done.location!;
}

async function exchange(
  client: oauth.Client,
  auth: oauth.ClientAuth,
  location: string,
  verifier: string | typeof oauth.nopkce,
  state = 'st-1',
) {
  const params = oauth.validateAuthResponse(h.as, client, new URL(location), state);
  const response = await oauth.authorizationCodeGrantRequest(
    h.as,
    client,
    auth,
    params,
    REDIRECT,
    verifier,
    insecure,
  );
  return oauth.processAuthorizationCodeResponse(h.as, client, response, {
    expectedNonce: 'n-1',
    requireIdToken: true,
  });
}

describe('authorization code with PKCE (public client)', () => {
  it('sign-in, consent, code+state, tokens with an ID token for openid profile email', async () => {
    const p = await pkce();
    const location = await signInAndApprove(new FormBrowser(h.baseUrl), authorizeUrl(publicParams(p)));
    expect(new URL(location).searchParams.get('state')).toBe('st-1');
    const tokens = await exchange(publicClient, oauth.None(), location, p.verifier);
    const id = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(id['email']).toBe(DEMO.user.email);
    expect(id['name']).toBe('Alice Example');
    expect(id.aud).toBe(publicClient.client_id);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const me = await api(h.baseUrl, 'GET', '/sfapi/GetConfiguration/', tokens.access_token);
    expect(me.status).toBe(200);
  });

  it('a public client may authenticate with Basic `client_id:` and an empty secret', async () => {
    const p = await pkce();
    const location = await signInAndApprove(
      new FormBrowser(h.baseUrl),
      authorizeUrl(publicParams(p, { scope: 'printing' })),
    );
    const code = new URL(location).searchParams.get('code')!;
    const res = await formPost(
      `${h.baseUrl}/oauth/access_token/`,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: p.verifier },
      { authorization: basic(publicClient.client_id, '') },
    );
    expect(res.status).toBe(200);
    expect(res.body['scope']).toBe('printing');
  });

  it('a code is single-use: the replay fails and revokes the tokens issued for it', async () => {
    const p = await pkce();
    const location = await signInAndApprove(new FormBrowser(h.baseUrl), authorizeUrl(publicParams(p)));
    const tokens = await exchange(publicClient, oauth.None(), location, p.verifier);
    expect(await oauthErrorOf(exchange(publicClient, oauth.None(), location, p.verifier))).toBe(
      'invalid_grant',
    );
    const refresh = formPost(
      `${h.baseUrl}/oauth/access_token/`,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      { authorization: basic(publicClient.client_id, '') },
    );
    expect((await refresh).body['error']).toBe('invalid_grant');
  });

  it.each([
    [
      'wrong verifier',
      (v: string) => ({ code_verifier: `${v.slice(0, -1)}${v.endsWith('A') ? 'B' : 'A'}` }),
      'invalid_grant',
    ],
    ['missing verifier', () => ({}), 'invalid_request'],
    [
      'other redirect_uri',
      (v: string) => ({ code_verifier: v, redirect_uri: 'http://localhost/other' }),
      'invalid_grant',
    ],
  ])('%s is refused', async (_name, fields, error) => {
    const p = await pkce();
    const location = await signInAndApprove(new FormBrowser(h.baseUrl), authorizeUrl(publicParams(p)));
    const code = new URL(location).searchParams.get('code')!;
    const res = await formPost(`${h.baseUrl}/oauth/access_token/`, {
      grant_type: 'authorization_code',
      code,
      client_id: publicClient.client_id,
      redirect_uri: REDIRECT,
      ...fields(p.verifier),
    });
    expect(res.body['error']).toBe(error);
  });

  it('a code expires after 60 seconds', async () => {
    const p = await pkce();
    const location = await signInAndApprove(new FormBrowser(h.baseUrl), authorizeUrl(publicParams(p)));
    h.clock.advance(61_000);
    expect(await oauthErrorOf(exchange(publicClient, oauth.None(), location, p.verifier))).toBe(
      'invalid_grant',
    );
  });
});

describe('authorization errors', () => {
  it.each([
    ['unknown client', { client_id: 'ghost' }],
    ['unregistered redirect_uri', { redirect_uri: 'http://localhost/evil' }],
    ['redirect_uri with another host', { redirect_uri: 'https://evil.example/callback' }],
  ])('%s: an error page, never a redirect', async (_name, extra) => {
    const res = await new FormBrowser(h.baseUrl).get(authorizeUrl(publicParams(await pkce(), extra)));
    expect(res.status).toBe(400);
    expect(res.location).toBeUndefined();
    expect(res.html).toContain('Error code');
  });

  it.each([
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no PKCE for a public client', { code_challenge: '', code_challenge_method: '' }, 'invalid_request'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['internal scope', { scope: 'account.admin' }, 'invalid_scope'],
    ['scope the client may not have', { scope: 'webhooks' }, 'invalid_scope'],
  ])('%s: redirect with error and state', async (_name, extra, error) => {
    const res = await new FormBrowser(h.baseUrl).get(authorizeUrl(publicParams(await pkce(), extra)));
    expect(res.status).toBe(303);
    const url = new URL(res.location!);
    expect(url.origin + url.pathname).toBe(REDIRECT);
    expect(url.searchParams.get('error')).toBe(error);
    expect(url.searchParams.get('state')).toBe('st-1');
  });

  it('Deny on the consent page redirects with access_denied', async () => {
    const browser = new FormBrowser(h.baseUrl);
    const signIn = await browser.get(authorizeUrl(publicParams(await pkce())));
    const consent = await browser.submit(signIn.html, {
      email: DEMO.user.email,
      password: DEMO.user.password,
    });
    const denied = await browser.submit(consent.html, { decision: 'deny' });
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
  });

  it('a wrong password shows the sign-in page again; a post without the CSRF token is refused', async () => {
    const browser = new FormBrowser(h.baseUrl);
    const signIn = await browser.get(authorizeUrl(publicParams(await pkce())));
    const wrong = await browser.submit(signIn.html, { email: DEMO.user.email, password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('The email or password is wrong.');
    expect(wrong.location).toBeUndefined();
    const forged = await browser.submit(signIn.html, {
      email: DEMO.user.email,
      password: DEMO.user.password,
      csrf_token: 'x',
    });
    expect(forged.status).toBe(403);
  });

  it('tenant_mode single: a user of another organization gets access_denied; multi lets them in', async () => {
    const single = await new FormBrowser(h.baseUrl).get(authorizeUrl(publicParams(await pkce())));
    const browser = new FormBrowser(h.baseUrl);
    const page = await browser.get(authorizeUrl(publicParams(await pkce())));
    const refused = await browser.submit(page.html, {
      email: DEMO.otherAdmin.email,
      password: DEMO.otherAdmin.password,
    });
    expect(single.status).toBe(200);
    expect(new URL(refused.location!).searchParams.get('error')).toBe('access_denied');
    const p = await pkce();
    const params = publicParams(p, { client_id: multiClient.client_id, scope: 'printing' });
    const location = await signInAndApprove(
      new FormBrowser(h.baseUrl),
      authorizeUrl(params),
      DEMO.otherAdmin,
    );
    expect(new URL(location).searchParams.get('code')).toEqual(expect.any(String));
  });

  it('a signed-in session goes straight to consent on the next request', async () => {
    const browser = new FormBrowser(h.baseUrl);
    await signInAndApprove(browser, authorizeUrl(publicParams(await pkce())));
    const again = await browser.get(authorizeUrl(publicParams(await pkce())));
    expect(again.html).toContain('Approve');
    expect(again.html).toContain(DEMO.user.email);
  });
});

describe('confidential clients', () => {
  it('an API-created client: consent, client_secret_basic, then refresh rotation', async () => {
    const { client, secret } = confidential;
    const params = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://app.example/cb',
      state: 's',
    };
    const location = await signInAndApprove(new FormBrowser(h.baseUrl), authorizeUrl(params));
    const code = new URL(location).searchParams.get('code')!;
    const tokenRes = await formPost(
      `${h.baseUrl}/oauth/access_token/`,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      { authorization: basic(client.client_id, secret) },
    );
    expect(tokenRes.status).toBe(200);
    const refreshed = await oauth.processRefreshTokenResponse(
      h.as,
      client,
      await oauth.refreshTokenGrantRequest(
        h.as,
        client,
        oauth.ClientSecretBasic(secret),
        tokenRes.body['refresh_token'] as string,
        insecure,
      ),
    );
    expect(refreshed.refresh_token).not.toBe(tokenRes.body['refresh_token']);
  });

  it('a seeded service client is trusted: no consent page, straight back with the code', async () => {
    const browser = new FormBrowser(h.baseUrl);
    const url = authorizeUrl({
      response_type: 'code',
      client_id: DEMO.client.id,
      redirect_uri: 'http://localhost/callback',
      state: 'z',
    });
    const signIn = await browser.get(url);
    const back = await browser.submit(signIn.html, { email: DEMO.user.email, password: DEMO.user.password });
    expect(back.status).toBe(303);
    expect(new URL(back.location!).searchParams.get('state')).toBe('z');
  });
});
