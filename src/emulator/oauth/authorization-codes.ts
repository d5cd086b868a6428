/**
 * Authorization codes (RFC 6749 section 4.1, PKCE RFC 7636): issued after sign-in and consent,
 * single-use, short-lived (60 s), bound to the client, the redirect URI and the PKCE challenge.
 * A replayed code is refused and the tokens issued for it are revoked (RFC 6749 section 4.1.2).
 * Time from the injected clock; stateless over the store, nothing to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import { normalizeRedirectUri } from '../../protocol/oauth-redirect-uri.js';
import { grantableScopes } from '../../protocol/oauth-scopes.js';
import { OAuthGrantError } from './oauth-errors.js';
import { AuthorizationCodeRepo } from './authorization-code-repo.js';
import type { OAuthRecords } from './oauth-records.js';
import type { OAuthClient } from '../clients/clients-face.js';
import { randomToken } from '../store/secret-hash.js';
import type { User } from '../accounts/accounts-face.js';
import { verifyCodeVerifier } from './pkce.js';
import type { TokenService } from './token-service.js';
import type { TokenResponse } from './token-types.js';
import { randomUUID } from 'node:crypto';

/** Lifetime of an authorization code (RFC 6749 recommends at most 10 minutes). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

/** What a code is issued for (validated by the authorize endpoint). */
export interface CodeGrant {
  client: OAuthClient;
  user: User;
  /** The redirect URI of the authorization request, normalized. */
  redirectUri: string;
  scopes: string[];
  /** S256 challenge; required for public clients. */
  codeChallenge: string | undefined;
  nonce: string | undefined;
}

/** The token request fields of grant_type=authorization_code. */
export interface CodeRedemption {
  code: string;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  scope: string | undefined;
}

/** Issues and redeems authorization codes. */
export class AuthorizationCodeService {
  private readonly repo: AuthorizationCodeRepo;

  constructor(
    private readonly records: OAuthRecords,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.repo = new AuthorizationCodeRepo(records.db);
  }

  /** Stores a new code for `grant` and returns it (the caller redirects with it). */
  issueCode(grant: CodeGrant): string {
    const code = randomToken();
    const now = this.clock.now();
    this.repo.insert(code, {
      clientId: grant.client.clientId,
      userId: grant.user.id,
      redirectUri: grant.redirectUri,
      scopes: grant.scopes,
      codeChallenge: grant.codeChallenge ?? null,
      nonce: grant.nonce ?? null,
      familyId: randomUUID(),
      createdAt: now,
      expiresAt: now + AUTHORIZATION_CODE_TTL_MS,
    });
    return code;
  }

  /** grant_type=authorization_code: checks the code's bindings and issues tokens once. */
  async redeem(client: OAuthClient, request: CodeRedemption): Promise<TokenResponse> {
    const record = this.repo.find(request.code);
    if (!record || record.clientId !== client.clientId) {
      throw invalidGrant('code: unknown, or issued to another client');
    }
    const now = this.clock.now();
    if (!this.repo.markUsed(request.code, now)) {
      this.records.refreshTokens.revokeFamily(record.familyId, now);
      this.logger.warn({ client: client.clientId }, 'authorization code replayed: its tokens are revoked');
      throw invalidGrant('code: already used; the tokens issued for it are revoked');
    }
    if (record.expiresAt <= now) throw invalidGrant('code: expired');
    checkRedirect(record.redirectUri, request.redirectUri);
    checkPkce(record.codeChallenge, request.codeVerifier);
    const user = this.records.users.findById(record.userId);
    if (!user) throw invalidGrant('the user of the code no longer exists');
    this.tokens.assertTenant(client, user);
    const scopes = grantableScopes(request.scope, record.scopes, 'authorization_code');
    if (!scopes.ok) throw new OAuthGrantError(scopes.error, scopes.description);
    const options = record.nonce === null ? {} : { nonce: record.nonce };
    return this.tokens.issue(client, user, scopes.scopes, record.familyId, options);
  }
}

function checkRedirect(stored: string, presented: string | undefined): void {
  if (presented === undefined || presented === '') {
    throw new OAuthGrantError(
      'invalid_request',
      'redirect_uri: required (the one of the authorization request)',
    );
  }
  let normalized: string;
  try {
    normalized = normalizeRedirectUri(presented).uri;
  } catch {
    throw invalidGrant('redirect_uri: does not match the authorization request');
  }
  if (normalized !== stored) throw invalidGrant('redirect_uri: does not match the authorization request');
}

function checkPkce(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    if (verifier !== undefined)
      throw invalidGrant('code_verifier: the authorization request had no code_challenge');
    return;
  }
  const check = verifyCodeVerifier(verifier, challenge);
  if (!check.ok) throw new OAuthGrantError(check.error, check.description);
}

function invalidGrant(description: string): OAuthGrantError {
  return new OAuthGrantError('invalid_grant', description);
}
