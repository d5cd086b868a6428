/**
 * The errors of the OAuth server's rules, raised by its services. Each carries its wire form of
 * RFC 6749 section 5.2 or RFC 6750 section 3.1, which http/http-errors.ts answers with.
 */
import { type HttpError, invalidToken, OAuthError, WireMappedError } from '../http/http-errors.js';

/**
 * The RFC 6749 (section 5.2, and RFC 8628 for the pairing code) errors of a token request; each
 * is one of the emulator's ErrorCodes (emulator/error-codes.ts), which the type check enforces.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'access_denied'
  | 'authorization_pending'
  | 'expired_token'
  | 'slow_down';

/**
 * A token request the rules refuse: `code` is the RFC 6749 error (invalid_grant, invalid_scope,
 * unauthorized_client, ...). `invalid_client` answers 401 with a Basic challenge, the rest 400.
 */
export class OAuthGrantError extends WireMappedError<OAuthErrorCode> {
  constructor(code: OAuthErrorCode, description: string) {
    super(code, description);
  }

  toHttpError(): HttpError {
    if (this.code === 'invalid_client') {
      return new OAuthError(401, this.code, this.message, { 'www-authenticate': 'Basic realm="printrelay"' });
    }
    return new OAuthError(400, this.code, this.message);
  }
}

/** A bearer token that is not (or no longer) valid: 401 invalid_token with a Bearer challenge. */
export class TokenVerificationError extends WireMappedError<'invalid_token'> {
  constructor(description: string) {
    super('invalid_token', description);
  }

  toHttpError(): HttpError {
    return invalidToken(this.message);
  }
}
