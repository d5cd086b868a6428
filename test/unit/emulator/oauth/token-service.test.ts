/**
 * The token service's rules, called directly on an in-memory store seeded with the demo seed plus
 * a few clients: client authentication, which client may spend a refresh token, which grants a
 * client may use, replay detection and retries, tenant rules, how long a revoked access token
 * stays refused, the claims of access and ID tokens, and the claims every access token must carry.
 * The service is built per test (beforeEach), so mutation testing sees its construction run under
 * each mutant; the seeded store and the signing key are shared.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, defaultEmulatorSeed } from '../../../../src/config/demo-seed.js';
import type { EmulatorSeed } from '../../../../src/config/emulator-seed-schema.js';
import { UserSignIn } from '../../../../src/emulator/accounts/user-sign-in.js';
import type { User } from '../../../../src/emulator/accounts/user-repo.js';
import type { OAuthClient } from '../../../../src/emulator/clients/oauth-client-repo.js';
import { SigningKeyService } from '../../../../src/emulator/oauth/signing-key-service.js';
import { TokenService } from '../../../../src/emulator/oauth/token-service.js';
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TTL_S,
  REFRESH_TOKEN_TTL_MS,
} from '../../../../src/emulator/oauth/token-types.js';
import { CredentialGuard, defaultCredentialLimits } from '../../../../src/emulator/store/credential-guard.js';
import { type EmulatorStore, openEmulatorStore } from '../../../../src/emulator/emulator-store.js';
import { SecretHasher } from '../../../../src/emulator/store/secret-hash.js';
import { applySeed } from '../../../../src/emulator/seed-loader.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { PrintRelayError } from '../../../../src/lib/errors.js';
import { createLogger, silentLogger } from '../../../../src/log/logger.js';

const ISSUER = 'https://issuer.test';
const SOURCE = '192.0.2.10';
type SeedClient = EmulatorSeed['organizations'][number]['oauth_clients'][number];

function seedClient(
  id: string,
  grants: SeedClient['grant_types'],
  over: Partial<SeedClient> = {},
): SeedClient {
  return {
    client_id: id,
    client_secret: `${id}-secret`,
    name: id,
    external_description: '',
    client_type: 'confidential',
    grant_types: grants,
    redirect_urls: [],
    allowed_scopes: [],
    tenant_mode: 'single',
    protected: false,
    ...over,
  };
}

let dir: string;
let store: EmulatorStore;
let clock: ManualClock;
let tokens: TokenService;
let keyDir: string;
let alice: User;
let otherAdmin: User;
/** The service's log lines of the current test (JSON objects). */
let logLines: Record<string, unknown>[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'token-service-'));
  keyDir = join(dir, 'keys');
  store = openEmulatorStore(':memory:');
  const seed = defaultEmulatorSeed();
  seed.organizations[0]!.oauth_clients.push(
    seedClient('other-app', ['password', 'refresh_token']),
    seedClient('multi-app', ['password'], { tenant_mode: 'multi' }),
    seedClient('password-only', ['password']),
    seedClient('code-only', ['authorization_code'], { redirect_urls: ['http://localhost/cb'] }),
    seedClient('pair-only', ['pairing_code']),
    seedClient('spa', ['authorization_code'], {
      client_type: 'public',
      client_secret: '',
      redirect_urls: ['http://localhost/cb'],
    }),
  );
  for (const [email, last] of [
    ['mono@demo.test', ''],
    ['gone@demo.test', 'Gone'],
  ] as const) {
    seed.organizations[0]!.users.push({
      email,
      password: 'some-password',
      first_name: 'Mono',
      last_name: last,
      roles: ['user'],
      pull_printing_enabled: false,
      cards: [],
    });
  }
  const seedClock = new ManualClock();
  await applySeed(store, seed, seedClock.now(), new SecretHasher(seedClock));
  // Creates the signing key once; each test's service loads it.
  await new SigningKeyService(store.signingKeys, seedClock, silentLogger(), keyDir).start();
  alice = store.users.findByEmail(DEMO.user.email)!;
  otherAdmin = store.users.findByEmail(DEMO.otherAdmin.email)!;
});

afterAll(async () => {
  store.db.close();
  await rm(dir, { recursive: true, force: true });
});

/** A new service (and clock and failure throttle) per test, on the shared store. */
beforeEach(async () => {
  clock = new ManualClock();
  const limits = {
    ...defaultCredentialLimits,
    perSubject: { ...defaultCredentialLimits.perSubject, maxFailures: 2 },
  };
  const guard = new CredentialGuard(new SecretHasher(clock), clock, limits, async () => {});
  logLines = [];
  const destination = { write: (line: string) => void logLines.push(JSON.parse(line)) };
  tokens = new TokenService(
    store,
    clock,
    createLogger({ destination, level: 'info' }),
    ISSUER,
    guard,
    new UserSignIn(store, guard),
    keyDir,
  );
  await tokens.start();
});

/** The seeded client (its secret is `<id>-secret`, the demo client's DEMO.client.secret). */
const client = (id: string): OAuthClient => store.clients.credentials(id)!.client;

/** `code: description` of what a call rejects with, or `accepted`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PrintRelayError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

const signIn = (c: OAuthClient, scope?: string, user: { email: string; password: string } = DEMO.user) =>
  tokens.passwordGrant(c, { username: user.email, password: user.password, scope, source: SOURCE });

describe('keys', () => {
  it('keeps one private key file in the key directory and publishes its public key', () => {
    const files = tokens.keyFiles();
    expect(files).toHaveLength(1);
    expect(files[0]!.startsWith(keyDir)).toBe(true);
    expect(tokens.jwks().keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig' })]);
  });
});

describe('client authentication', () => {
  it('answers the client for its secret, invalid_client for a wrong secret or an unknown client', async () => {
    expect((await tokens.authenticateClient(DEMO.client.id, DEMO.client.secret, SOURCE)).clientId).toBe(
      DEMO.client.id,
    );
    for (const [id, secret] of [
      [DEMO.client.id, 'wrong'],
      [DEMO.client.id, ''],
      ['nobody', 'x'],
    ] as const) {
      expect(await refusal(tokens.authenticateClient(id, secret, SOURCE)), `${id}/${secret}`).toBe(
        'invalid_client: client authentication failed',
      );
    }
  });

  it('matches a public client with an empty secret only', async () => {
    expect((await tokens.authenticateClient('spa', '', SOURCE)).clientId).toBe('spa');
    expect(await refusal(tokens.authenticateClient('spa', 'spa-secret', SOURCE))).toBe(
      'invalid_client: client authentication failed',
    );
  });

  it('counts a public client presented with a secret as a failure, and its right answers not', async () => {
    for (let i = 0; i < 3; i++)
      expect((await tokens.authenticateClient('spa', '', SOURCE)).clientId).toBe('spa');
    for (let i = 0; i < 2; i++) await refusal(tokens.authenticateClient('spa', 'guess', SOURCE));
    expect(await refusal(tokens.authenticateClient('spa', '', SOURCE))).toMatch(/^too_many_requests: /);
  });

  it('throttles failures per client: another client is not locked', async () => {
    for (let i = 0; i < 2; i++) await refusal(tokens.authenticateClient('other-app', 'wrong', SOURCE));
    expect(await refusal(tokens.authenticateClient('other-app', 'other-app-secret', SOURCE))).toMatch(
      /^too_many_requests: /,
    );
    expect((await tokens.authenticateClient(DEMO.client.id, DEMO.client.secret, SOURCE)).clientId).toBe(
      DEMO.client.id,
    );
  });
});

describe('password grant', () => {
  it('answers a Bearer token of the user with the scopes asked, and a refresh token', async () => {
    const answer = await signIn(client(DEMO.client.id), 'printing reporting');
    expect(answer).toMatchObject({
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      scope: 'printing reporting',
    });
    expect(answer.refresh_token).toMatch(/.{20}/);
    const iat = Math.floor(clock.now() / 1000);
    expect(decodeJwt(answer.access_token)).toMatchObject({
      iss: ISSUER,
      aud: ACCESS_TOKEN_AUDIENCE,
      sub: alice.id,
      org: alice.organizationId,
      scopes: 'printing reporting',
      tk: 'user',
      client_id: DEMO.client.id,
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
    });
  });

  it('refuses a wrong password as invalid_grant', async () => {
    expect(await refusal(signIn(client(DEMO.client.id), undefined, { ...DEMO.user, password: 'nope' }))).toBe(
      'invalid_grant: the user name or password is wrong',
    );
  });

  it('refuses a scope the client may not have', async () => {
    expect(await refusal(signIn(client(DEMO.client.id), 'bogus'))).toBe(
      'invalid_scope: scope: unknown scope',
    );
  });

  it('refuses the grant to a client of the pairing grant only', async () => {
    expect(await refusal(signIn(client('pair-only')))).toBe(
      'unauthorized_client: the client may not use grant_type=password',
    );
  });
});

describe('tenant rules', () => {
  it("lets a single-tenant client of an organization serve only that organization's users", async () => {
    expect(await refusal(signIn(client('other-app'), undefined, DEMO.otherAdmin))).toBe(
      'unauthorized_client: this single-tenant client serves only users of its own organization',
    );
    expect(decodeJwt((await signIn(client('other-app'))).access_token).sub).toBe(alice.id);
  });

  it('lets a multi-tenant client and a protected client of the service serve every organization', async () => {
    for (const id of ['multi-app', DEMO.client.id]) {
      const answer = await signIn(client(id), undefined, DEMO.otherAdmin);
      expect(decodeJwt(answer.access_token), id).toMatchObject({
        sub: otherAdmin.id,
        org: otherAdmin.organizationId,
      });
    }
  });
});

describe('refresh tokens', () => {
  it("refuses another client's refresh token as unknown and leaves it usable by its own client", async () => {
    const { refresh_token: refresh } = await signIn(client(DEMO.client.id));
    expect(await refusal(tokens.refreshGrant(client('other-app'), refresh!))).toBe(
      'invalid_grant: the refresh token is unknown',
    );
    const rotated = await tokens.refreshGrant(client(DEMO.client.id), refresh!);
    expect(rotated.refresh_token).not.toBe(refresh);
  });

  it('keeps the scopes and the sign-in; refuses to widen the scopes, leaving the token usable', async () => {
    const demo = client(DEMO.client.id);
    const first = await signIn(demo, 'printing');
    expect(await refusal(tokens.refreshGrant(demo, first.refresh_token!, 'printing reporting'))).toBe(
      'invalid_scope: scope: reporting exceeds the scope of the original grant',
    );
    const next = await tokens.refreshGrant(demo, first.refresh_token!);
    expect(next.scope).toBe('printing');
    expect(decodeJwt(next.access_token).fid).toBe(decodeJwt(first.access_token).fid);
  });

  it('revokes the whole sign-in when a spent token comes back, its access tokens included', async () => {
    const demo = client(DEMO.client.id);
    const first = await signIn(demo);
    const second = await tokens.refreshGrant(demo, first.refresh_token!);
    expect(await refusal(tokens.refreshGrant(demo, first.refresh_token!))).toBe(
      'invalid_grant: the refresh token was already used; every token of this sign-in is revoked',
    );
    expect(await refusal(tokens.refreshGrant(demo, second.refresh_token!))).toBe(
      'invalid_grant: the refresh token was revoked',
    );
    expect(await refusal(tokens.verifyAccessToken(second.access_token))).toBe(
      'invalid_token: the sign-in of this token was revoked',
    );
    const family = decodeJwt(first.access_token).fid;
    expect(logLines.filter((l) => l['level'] === 'warn')).toEqual([
      expect.objectContaining({
        client: DEMO.client.id,
        family,
        msg: 'refresh token reused: family revoked',
      }),
    ]);
  });

  it('answers a retry with its retry key the same, until the new token is used', async () => {
    const demo = client(DEMO.client.id);
    const first = await signIn(demo);
    const answer = await tokens.refreshGrant(demo, first.refresh_token!, undefined, 'retry-key-0000000001');
    expect(logLines.filter((l) => /retried/.test(String(l['msg'])))).toEqual([]);
    expect(await tokens.refreshGrant(demo, first.refresh_token!, undefined, 'retry-key-0000000001')).toEqual(
      answer,
    );
    expect(logLines.filter((l) => /retried/.test(String(l['msg'])))).toEqual([
      expect.objectContaining({
        level: 'info',
        family: decodeJwt(first.access_token).fid,
        msg: 'refresh retried with its retry key: same answer again',
      }),
    ]);
    expect(
      await refusal(tokens.refreshGrant(demo, first.refresh_token!, undefined, 'retry-key-0000000002')),
    ).toMatch(/already used/);
  });

  it('does not answer a retry again once its new token was used', async () => {
    const demo = client(DEMO.client.id);
    const first = await signIn(demo);
    const answer = await tokens.refreshGrant(demo, first.refresh_token!, undefined, 'retry-key-0000000001');
    await tokens.refreshGrant(demo, answer.refresh_token!);
    expect(
      await refusal(tokens.refreshGrant(demo, first.refresh_token!, undefined, 'retry-key-0000000001')),
    ).toMatch(/already used/);
  });

  it('expires 30 days after it was issued', async () => {
    const demo = client(DEMO.client.id);
    const first = await signIn(demo);
    clock.advance(REFRESH_TOKEN_TTL_MS - 1);
    const second = await tokens.refreshGrant(demo, first.refresh_token!);
    clock.advance(REFRESH_TOKEN_TTL_MS);
    expect(await refusal(tokens.refreshGrant(demo, second.refresh_token!))).toBe(
      'invalid_grant: the refresh token expired',
    );
  });

  it('refuses the token of a user who no longer exists', async () => {
    const gone = { email: 'gone@demo.test', password: 'some-password' };
    const first = await signIn(client(DEMO.client.id), undefined, gone);
    store.users.delete(store.users.findByEmail(gone.email)!.id);
    expect(await refusal(tokens.refreshGrant(client(DEMO.client.id), first.refresh_token!))).toBe(
      'invalid_grant: the user of the refresh token no longer exists',
    );
  });

  it('applies the tenant rules again on refresh', async () => {
    const other = client('other-app');
    const issued = await tokens.issue(other, otherAdmin, ['printing'], 'family-x');
    expect(await refusal(tokens.refreshGrant(other, issued.refresh_token!))).toMatch(
      /^unauthorized_client: /,
    );
  });

  it('lets clients of the code or pairing grant rotate refresh tokens without listing the grant', async () => {
    for (const id of ['pair-only', 'code-only']) {
      const first = await tokens.issue(client(id), alice, ['printing'], `family-${id}`, 'device');
      expect(decodeJwt(first.access_token).tk).toBe('device');
      const next = await tokens.refreshGrant(client(id), first.refresh_token!);
      expect(decodeJwt(next.access_token), id).toMatchObject({ fid: `family-${id}`, client_id: id });
    }
  });

  it('refuses refresh to a client of the password grant only', async () => {
    const first = await tokens.issue(client('password-only'), alice, ['printing'], 'family-p');
    expect(await refusal(tokens.refreshGrant(client('password-only'), first.refresh_token!))).toBe(
      'unauthorized_client: the client may not use grant_type=refresh_token',
    );
  });
});

describe('client_credentials', () => {
  it('answers a token of the client itself, in its organization, without a refresh token', async () => {
    const demo = client(DEMO.client.id);
    const answer = await tokens.clientCredentialsGrant(demo, 'printing reporting');
    expect(answer).toStrictEqual({
      access_token: answer.access_token,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      scope: 'printing reporting',
    });
    const iat = Math.floor(clock.now() / 1000);
    const claims = decodeJwt(answer.access_token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      aud: ACCESS_TOKEN_AUDIENCE,
      sub: DEMO.client.id,
      org: demo.organizationId,
      scopes: 'printing reporting',
      tk: 'client',
      client_id: DEMO.client.id,
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
    });
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(await tokens.verifyAccessToken(answer.access_token)).toMatchObject({ tk: 'client' });
  });

  it('never grants the identity scopes, which need a signed-in user', async () => {
    const demo = client(DEMO.client.id);
    expect(await refusal(tokens.clientCredentialsGrant(demo, 'printing openid'))).toBe(
      'invalid_scope: scope: openid needs a signed-in user and cannot be granted to client_credentials',
    );
    expect((await tokens.clientCredentialsGrant(demo)).scope.split(' ')).not.toContain('email');
  });

  it('refuses a client without the grant', async () => {
    expect(await refusal(tokens.clientCredentialsGrant(client('other-app')))).toBe(
      'unauthorized_client: the client may not use grant_type=client_credentials',
    );
  });
});

describe('access-token revocation', () => {
  it('refuses a revoked token until it would have expired, however many revocations follow', async () => {
    const demo = client(DEMO.client.id);
    const first = await signIn(demo);
    const { jti, exp } = decodeJwt(first.access_token);
    tokens.revokeAccessToken(jti!, exp!);
    clock.advance((ACCESS_TOKEN_TTL_S - 60) * 1000);
    const second = await signIn(demo);
    const claims = decodeJwt(second.access_token);
    // The second revocation prunes what has run out; the first token has a minute left.
    tokens.revokeAccessToken(claims.jti!, claims.exp!);
    expect(await refusal(tokens.verifyAccessToken(first.access_token))).toBe(
      'invalid_token: the token was revoked',
    );
  });
});

describe('ID tokens', () => {
  it('come only with openid', async () => {
    const demo = client(DEMO.client.id);
    expect((await signIn(demo, 'printing')).id_token).toBeUndefined();
    expect((await signIn(demo, 'printing openid')).id_token).toBeDefined();
  });

  it('name the user, the client and the organization; email and name only with their scopes', async () => {
    const demo = client(DEMO.client.id);
    const bare = decodeJwt((await signIn(demo, 'openid')).id_token!);
    const iat = Math.floor(clock.now() / 1000);
    expect(bare).toStrictEqual({
      iss: ISSUER,
      sub: alice.id,
      aud: DEMO.client.id,
      azp: DEMO.client.id,
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
      auth_time: iat,
      org: alice.organizationId,
    });
    const full = await tokens.issue(demo, alice, ['openid', 'email', 'profile'], 'family-id', {
      nonce: 'n-1',
    });
    expect(decodeJwt(full.id_token!)).toMatchObject({
      nonce: 'n-1',
      email: DEMO.user.email,
      email_verified: true,
      name: 'Alice Example',
      given_name: 'Alice',
      family_name: 'Example',
    });
  });

  it('write the name of a user without a last name without a trailing blank', async () => {
    const mono = store.users.findByEmail('mono@demo.test')!;
    const answer = await tokens.issue(client(DEMO.client.id), mono, ['openid', 'profile'], 'family-m');
    expect(decodeJwt(answer.id_token!).name).toBe('Mono');
  });
});

describe('verifyAccessToken', () => {
  /** Signs with the service's own key: tokens the service would never issue. */
  let forger: SigningKeyService;
  beforeEach(async () => {
    forger = new SigningKeyService(store.signingKeys, clock, silentLogger(), keyDir);
    await forger.start();
  });

  const iat = () => Math.floor(clock.now() / 1000);
  const claims = (): Record<string, unknown> => ({
    iss: ISSUER,
    aud: ACCESS_TOKEN_AUDIENCE,
    sub: 'u-1',
    org: 'o-1',
    scopes: 'printing',
    tk: 'user',
    client_id: DEMO.client.id,
    jti: 'j-1',
    iat: iat(),
    exp: iat() + 60,
  });

  it('accepts a token with every claim', async () => {
    expect(await tokens.verifyAccessToken(await forger.sign(claims()))).toMatchObject({
      sub: 'u-1',
      org: 'o-1',
    });
  });

  it.each(['sub', 'org', 'scopes'])('refuses a token without %s', async (missing) => {
    const token = await forger.sign({ ...claims(), [missing]: undefined });
    expect(await refusal(tokens.verifyAccessToken(token))).toBe(
      'invalid_token: the token lacks sub, org or scopes',
    );
  });

  it.each([undefined, 'admin'])('refuses a token of kind %s', async (tk) => {
    const token = await forger.sign({ ...claims(), tk });
    expect(await refusal(tokens.verifyAccessToken(token))).toBe(
      'invalid_token: the token lacks a known kind (tk)',
    );
  });

  it.each(['jti', 'iat'])('refuses a token without %s', async (missing) => {
    const token = await forger.sign({ ...claims(), [missing]: undefined });
    expect(await refusal(tokens.verifyAccessToken(token))).toBe('invalid_token: the token is invalid');
  });

  it('refuses a token for another audience', async () => {
    const token = await forger.sign({ ...claims(), aud: 'someone-else' });
    expect(await refusal(tokens.verifyAccessToken(token))).toBe('invalid_token: the token is invalid');
  });

  it('checks the sign-in only of a token that names one', async () => {
    store.refreshTokens.insert('r-1', {
      familyId: 'f-1',
      clientId: DEMO.client.id,
      userId: alice.id,
      organizationId: alice.organizationId,
      scopes: ['printing'],
      createdAt: clock.now(),
      expiresAt: clock.now() + 1000,
    });
    store.refreshTokens.revokeFamily('f-1', clock.now());
    expect(await refusal(tokens.verifyAccessToken(await forger.sign({ ...claims(), fid: 'f-1' })))).toBe(
      'invalid_token: the sign-in of this token was revoked',
    );
    expect(
      await refusal(tokens.verifyAccessToken(await forger.sign({ ...claims(), jti: 'j-2', fid: 'f-2' }))),
    ).toBe('accepted');
    expect(await refusal(tokens.verifyAccessToken(await forger.sign({ ...claims(), jti: 'j-3' })))).toBe(
      'accepted',
    );
  });
});
