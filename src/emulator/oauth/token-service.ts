/**
 * The token service: OAuth 2.0 client authentication, the password and refresh_token grants,
 * RS256 access tokens (1 hour, from the injected clock) and single-use rotating refresh tokens
 * whose reuse revokes the whole family. Verifies bearer tokens for accounts/bearer-auth.ts (revoked
 * `jti`s refused). Tenant rules (tenant_mode single) for every user grant, OpenID ID tokens when
 * `openid` is granted, and client_credentials tokens for the client's organization.
 * `start()` loads the signing key; nothing to clean up.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import { OAuthGrantError, TokenVerificationError } from './oauth-errors.js';
import type { OAuthRecords } from './oauth-records.js';
import { RevokedAccessTokenRepo } from './oauth-audit-repo.js';
import type { OAuthClient } from '../clients/clients-face.js';
import { randomToken } from '../store/secret-hash.js';
import type { CredentialGuard } from '../store/credential-guard.js';
import type { UserSignIn } from '../accounts/user-sign-in.js';
import type { User } from '../accounts/accounts-face.js';
import { RefreshRetryCache } from './refresh-retry-cache.js';
import { SigningKeyService } from './signing-key-service.js';
import { type GrantType, grantableScopes } from '../../protocol/oauth-scopes.js';

import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TTL_S,
  REQUIRED_ACCESS_CLAIMS,
  TOKEN_KINDS,
  type AccessTokenClaims,
  type IssueOptions,
  REFRESH_TOKEN_TTL_MS,
  type TokenKind,
  type TokenResponse,
} from './token-types.js';

/** Issues, rotates and verifies tokens. */
export class TokenService {
  private readonly keys: SigningKeyService;
  private readonly revoked: RevokedAccessTokenRepo;
  /** Answers of refreshes sent with a retry_key, for the client's retry (refresh-retry-cache.ts). */
  private readonly retries: RefreshRetryCache<TokenResponse>;

  constructor(
    private readonly records: OAuthRecords,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The `iss` claim of every token. */
    readonly issuer: string,
    private readonly guard: CredentialGuard,
    private readonly signIn: UserSignIn,
    /** Directory of the private signing key files. */
    keyDir: string,
  ) {
    this.keys = new SigningKeyService(records.signingKeys, clock, logger, keyDir);
    this.revoked = new RevokedAccessTokenRepo(records.db);
    this.retries = new RefreshRetryCache(records.db, clock);
  }

  /** Loads or creates the signing key. */
  async start(): Promise<void> {
    await this.keys.start();
  }

  /** The private signing key files (for the start-up mode check). */
  keyFiles(): string[] {
    return this.keys.keyFiles();
  }

  /** The public keys (GET /.well-known/jwks.json). */
  jwks(): ReturnType<SigningKeyService['jwks']> {
    return this.keys.jwks();
  }

  /**
   * The live client whose secret matches, else invalid_client (401, Basic challenge). A public
   * client matches only an empty secret. Throttled per client and per source address (429).
   */
  async authenticateClient(clientId: string, secret: string, source: string): Promise<OAuthClient> {
    const client = await this.checkClient(clientId, secret, source);
    if (!client) {
      throw new OAuthGrantError('invalid_client', 'client authentication failed');
    }
    return client;
  }

  private async checkClient(
    clientId: string,
    secret: string,
    source: string,
  ): Promise<OAuthClient | undefined> {
    const subject = `client:${clientId}`;
    const found = this.records.clients.credentials(clientId);
    if (found?.secretHash === null) {
      await this.guard.begin(subject, source);
      await this.guard.finish(subject, source, secret === '');
      return secret === '' ? found.client : undefined;
    }
    const ok = await this.guard.verify({ subject, source, secret, stored: found?.secretHash });
    return ok ? found?.client : undefined;
  }

  /** grant_type=password: a user of the client's organization (any organization for a multi-tenant client). */
  async passwordGrant(
    client: OAuthClient,
    input: { username: string; password: string; scope?: string | undefined; source: string },
  ): Promise<TokenResponse> {
    this.requireGrantType(client, 'password');
    const scopes = this.scopesFor(client, input.scope, 'password');
    const user = await this.signIn.verify(input.username, input.password, input.source);
    if (!user) throw new OAuthGrantError('invalid_grant', 'the user name or password is wrong');
    this.assertTenant(client, user);
    return this.issue(client, user, scopes, randomUUID());
  }

  /**
   * grant_type=refresh_token: spends the token and returns a new pair of the same family. Scopes
   * wider than the original grant are refused (invalid_scope) before the token is spent.
   * A spent token presented again revokes the family (replay detection) — unless it comes with
   * the `retryKey` of the refresh that spent it and that refresh's token is still unused: then
   * the same answer again (a client that lost the answer; see refresh-retry-cache.ts).
   */
  async refreshGrant(
    client: OAuthClient,
    refreshToken: string,
    scope?: string,
    retryKey?: string,
  ): Promise<TokenResponse> {
    this.requireGrantType(client, 'refresh_token');
    const now = this.clock.now();
    const record = this.records.refreshTokens.find(refreshToken);
    if (!record || record.clientId !== client.clientId) throw invalidGrant('the refresh token is unknown');
    if (record.revokedAt !== null) throw invalidGrant('the refresh token was revoked');
    const retried = this.retriedAnswer(refreshToken, retryKey);
    if (retried) return retried;
    // Before spending: a refused scope leaves the token usable (asking again without it is no replay).
    const scopes = this.scopesFor(client, scope, 'refresh_token', record.scopes);
    if (record.spentAt !== null || !this.records.refreshTokens.markSpent(refreshToken, now)) {
      this.records.refreshTokens.revokeFamily(record.familyId, now);
      this.logger.warn(
        { client: client.clientId, family: record.familyId },
        'refresh token reused: family revoked',
      );
      throw invalidGrant('the refresh token was already used; every token of this sign-in is revoked');
    }
    if (record.expiresAt <= now) throw invalidGrant('the refresh token expired');
    const user = this.records.users.findById(record.userId);
    if (!user) throw invalidGrant('the user of the refresh token no longer exists');
    this.assertTenant(client, user);
    const response = await this.issue(client, user, scopes, record.familyId);
    this.retries.remember(refreshToken, retryKey, response);
    return response;
  }

  /** The remembered answer of (token, retryKey) while its refresh token is still unused. */
  private retriedAnswer(refreshToken: string, retryKey: string | undefined): TokenResponse | undefined {
    const answer = this.retries.answer(refreshToken, retryKey);
    const next = answer?.refresh_token ? this.records.refreshTokens.find(answer.refresh_token) : undefined;
    if (!answer || !next || next.spentAt !== null || next.revokedAt !== null) return undefined;
    this.logger.info({ family: next.familyId }, 'refresh retried with its retry key: same answer again');
    return answer;
  }

  /** Issues an access token and a new refresh token of `familyId` (other grants use this too). */
  async issue(
    client: OAuthClient,
    user: User,
    scopes: string[],
    familyId: string,
    options: TokenKind | IssueOptions = {},
  ): Promise<TokenResponse> {
    const { kind = 'user', nonce } = typeof options === 'string' ? { kind: options } : options;
    const now = this.clock.now();
    const iat = Math.floor(now / 1000);
    const claims: AccessTokenClaims = {
      iss: this.issuer,
      aud: ACCESS_TOKEN_AUDIENCE,
      fid: familyId,
      sub: user.id,
      org: user.organizationId,
      scopes: scopes.join(' '),
      tk: kind,
      client_id: client.clientId,
      jti: randomUUID(),
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
    };
    const refresh = randomToken();
    this.records.refreshTokens.insert(refresh, {
      familyId,
      clientId: client.clientId,
      userId: user.id,
      organizationId: user.organizationId,
      scopes,
      createdAt: now,
      expiresAt: now + REFRESH_TOKEN_TTL_MS,
    });
    const access = await this.keys.sign({ ...claims });
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      scope: claims.scopes,
      refresh_token: refresh,
    };
    if (scopes.includes('openid')) response.id_token = await this.idToken(client, user, scopes, iat, nonce);
    return response;
  }

  /**
   * grant_type=client_credentials: an access token for the client itself, in the client's
   * organization (tenant rules do not apply), without a refresh token. `sub` is the client id,
   * `tk` client; the APIs take it as a caller of kind `client` (accounts/bearer-auth.ts): no user, no
   * role, scopes as for any token.
   */
  async clientCredentialsGrant(client: OAuthClient, scope?: string): Promise<TokenResponse> {
    this.requireGrantType(client, 'client_credentials');
    const scopes = this.scopesFor(client, scope, 'client_credentials');
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: AccessTokenClaims = {
      iss: this.issuer,
      aud: ACCESS_TOKEN_AUDIENCE,
      sub: client.clientId,
      org: client.organizationId,
      scopes: scopes.join(' '),
      tk: 'client',
      client_id: client.clientId,
      jti: randomUUID(),
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
    };
    const access = await this.keys.sign({ ...claims });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      scope: claims.scopes,
    };
  }

  /**
   * tenant_mode single (and not a protected client of the service): the user must belong to the client's organization, else
   * unauthorized_client (the token endpoint's answer; authorize pages use `tenantAllows`).
   */
  assertTenant(client: OAuthClient, user: User): void {
    if (!tenantAllows(client, user)) {
      throw new OAuthGrantError(
        'unauthorized_client',
        'this single-tenant client serves only users of its own organization',
      );
    }
  }

  /** Revokes an access token by its id until it would have expired (RFC 7009). */
  revokeAccessToken(jti: string, exp: number): void {
    this.revoked.prune(this.clock.now());
    this.revoked.revoke(jti, exp * 1000);
  }

  private async idToken(
    client: OAuthClient,
    user: User,
    scopes: string[],
    iat: number,
    nonce: string | undefined,
  ): Promise<string> {
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      sub: user.id,
      aud: client.clientId,
      azp: client.clientId,
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
      auth_time: iat,
      org: user.organizationId,
    };
    if (nonce !== undefined) claims['nonce'] = nonce;
    if (scopes.includes('email')) Object.assign(claims, { email: user.email, email_verified: true });
    if (scopes.includes('profile')) {
      const name = `${user.firstName} ${user.lastName}`.trim();
      Object.assign(claims, { name, given_name: user.firstName, family_name: user.lastName });
    }
    return this.keys.sign(claims);
  }

  /**
   * Verifies a bearer token: signature, issuer, audience and lifetime; exp, iat, jti, iss, aud,
   * sub, org, scopes and a known kind (`tk`) present; neither the token (`jti`) nor its sign-in
   * (`fid`) revoked. The revocation checks run on every call, also for tokens the verified-token
   * cache knows. Throws 401 invalid_token naming why.
   */
  async verifyAccessToken(token: string): Promise<AccessTokenClaims> {
    const payload = await this.keys.verify(token, this.issuer, {
      audience: ACCESS_TOKEN_AUDIENCE,
      requiredClaims: [...REQUIRED_ACCESS_CLAIMS],
    });
    if (
      typeof payload.sub !== 'string' ||
      typeof payload['org'] !== 'string' ||
      typeof payload['scopes'] !== 'string'
    ) {
      throw new TokenVerificationError('the token lacks sub, org or scopes');
    }
    if (!TOKEN_KINDS.includes(payload['tk'] as TokenKind)) {
      throw new TokenVerificationError('the token lacks a known kind (tk)');
    }
    if (this.revoked.isRevoked(payload.jti as string)) {
      throw new TokenVerificationError('the token was revoked');
    }
    const family = payload['fid'];
    if (typeof family === 'string' && this.records.refreshTokens.isFamilyRevoked(family)) {
      throw new TokenVerificationError('the sign-in of this token was revoked');
    }
    return payload as unknown as AccessTokenClaims;
  }

  private requireGrantType(client: OAuthClient, grant: string): void {
    // Refresh-token rotation is enabled on every client of the code and pairing grants (spec C).
    const implied =
      grant === 'refresh_token' &&
      (client.grantTypes.includes('authorization_code') || client.grantTypes.includes('pairing_code'));
    if (!implied && !client.grantTypes.includes(grant)) {
      throw new OAuthGrantError('unauthorized_client', `the client may not use grant_type=${grant}`);
    }
  }

  /** The scopes of a token request by the rules of protocol/oauth-scopes.ts; invalid_scope otherwise. */
  private scopesFor(
    client: OAuthClient,
    scope: string | undefined,
    grantType: GrantType,
    previouslyGranted?: readonly string[],
  ): string[] {
    const grant = grantableScopes(scope, client.allowedScopes, grantType, { previouslyGranted });
    if (!grant.ok) throw new OAuthGrantError(grant.error, grant.description);
    return grant.scopes;
  }
}

/** Whether tenant_mode lets `user` sign in through `client`: single needs the client's organization. */
export function tenantAllows(client: OAuthClient, user: User): boolean {
  // A protected client is the service's own (spec, client management rule 3): every organization's users.
  if (client.protected) return true;
  return client.tenantMode !== 'single' || user.organizationId === client.organizationId;
}

function invalidGrant(description: string): OAuthGrantError {
  return new OAuthGrantError('invalid_grant', description);
}
