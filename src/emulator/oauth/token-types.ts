/**
 * The shapes and lifetimes of the tokens the emulator issues: the claims of an access token,
 * the token endpoint's answer, and the options of issuing. Shared by the token service, the
 * bearer check and the grant services.
 */

/** Access token lifetime in seconds (spec: 3600). */
export const ACCESS_TOKEN_TTL_S = 3600;
/** Refresh token lifetime (spec: "varies by configuration"); 30 days here. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/** The `aud` of every access token: the emulator's APIs. */
export const ACCESS_TOKEN_AUDIENCE = 'printrelay-api';

/** Kind of caller a token stands for (claim `tk`); `client` tokens (client_credentials) have no user. */
export type TokenKind = 'user' | 'device' | 'client';

/** Every token kind, for the check of `tk`. */
export const TOKEN_KINDS: readonly TokenKind[] = ['user', 'device', 'client'];

/** Claims every access token must carry (checked on every call). */
export const REQUIRED_ACCESS_CLAIMS = ['exp', 'iat', 'jti', 'iss', 'aud'] as const;

/** Claims of our access tokens. */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  /** The sign-in (refresh-token family) the token belongs to; absent for client tokens. */
  fid?: string;
  sub: string;
  org: string;
  scopes: string;
  tk: TokenKind;
  client_id: string;
  jti: string;
  iat: number;
  exp: number;
}

/** The token endpoint's success body (spec: Token response). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  /** Absent for client_credentials (RFC 6749 section 4.4.3). */
  refresh_token?: string;
  /** OpenID Connect ID token, when `openid` was granted. */
  id_token?: string;
}

/** Extra inputs of TokenService.issue. */
export interface IssueOptions {
  /** The kind of caller (claim `tk`); default user. */
  kind?: TokenKind;
  /** The authorization request's nonce, echoed in the ID token. */
  nonce?: string;
}
