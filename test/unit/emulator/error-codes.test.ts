import { describe, expect, it } from 'vitest';
import { ConflictError, GoneError, hasErrorCode } from '../../../src/lib/errors.js';
import { toHttpError } from '../../../src/emulator/http/http-errors.js';
import { OAuthGrantError, TokenVerificationError } from '../../../src/emulator/oauth/oauth-errors.js';

describe("the emulator's error codes", () => {
  it('are declared: a misspelled code fails the type check (npm run typecheck), nothing checks it at run time', () => {
    // @ts-expect-error 'name_tkaen' is no declared error code
    const misspelled = new ConflictError('name: taken', 'name', 'name_tkaen');
    expect(toHttpError(misspelled).body.error).toBe('name_tkaen');
    // @ts-expect-error 'invalid_grnat' is no RFC 6749 error
    expect(new OAuthGrantError('invalid_grnat', 'x').code).toBe('invalid_grnat');
    // @ts-expect-error a comparison with an undeclared code is refused too
    expect(hasErrorCode(new GoneError('gone'), 'gnoe')).toBe(false);
    expect(hasErrorCode(new GoneError('gone'), 'gone')).toBe(true);
  });

  it("map the OAuth server's errors to their RFC 6749 and RFC 6750 wire forms", () => {
    expect(toHttpError(new OAuthGrantError('invalid_client', 'client authentication failed'))).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="printrelay"' },
      body: {
        error: 'invalid_client',
        error_description: 'client authentication failed',
        message: 'client authentication failed',
      },
    });
    expect(toHttpError(new OAuthGrantError('invalid_grant', 'expired'))).toMatchObject({
      status: 400,
      headers: {},
      body: { error: 'invalid_grant', error_description: 'expired' },
    });
    const token = toHttpError(new TokenVerificationError('the token expired'));
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_token');
    expect(token.headers['www-authenticate']).toBe(
      'Bearer realm="printrelay", error="invalid_token", error_description="the token expired"',
    );
  });
});
