/**
 * The errors of the OAuth server's rules, raised by its services and turned into the wire form of
 * RFC 6749 section 5.2 and RFC 6750 section 3.1 by http/http-errors.ts alone.
 */
import { PrintRelayError } from '../../lib/errors.js';

/**
 * A token request the rules refuse: `code` is the RFC 6749 error (invalid_grant, invalid_scope,
 * unauthorized_client, ...). `invalid_client` answers 401 with a Basic challenge, the rest 400.
 */
export class OAuthGrantError extends PrintRelayError {
  constructor(code: string, description: string) {
    super(code, description);
  }
}

/** A bearer token that is not (or no longer) valid: 401 invalid_token with a Bearer challenge. */
export class TokenVerificationError extends PrintRelayError {
  constructor(description: string) {
    super('invalid_token', description);
  }
}
