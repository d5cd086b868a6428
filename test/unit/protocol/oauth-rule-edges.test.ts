/**
 * Edges of the OAuth rules that the main tests of each module leave open (found by mutation
 * testing, docs/testing.md): the field and rule an error names, length boundaries, userinfo
 * forms without `//`, native schemes with junk around a valid one, the default scope list,
 * scopes on refresh when the client was narrowed, identity scopes for user grants, HEAD on
 * webhooks, and the client rules' null and non-string inputs.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError, ValidationErrors } from '../../../src/lib/errors.js';
import {
  parseConfidentialGrantTypes,
  parseTenantMode,
  validateClientPatch,
  validateNewClient,
} from '../../../src/protocol/oauth-client-rules.js';
import { MAX_REDIRECT_URL_LENGTH, normalizeRedirectUri } from '../../../src/protocol/oauth-redirect-uri.js';
import {
  DEFAULT_GRANTABLE_SCOPES,
  grantableScopes,
  parseAllowedScopes,
  SCOPE_NOT_PERMITTED_MESSAGE,
  webhookScopeFor,
} from '../../../src/protocol/oauth-scopes.js';

/** Field, rule and message of every ValidationError `run` throws. */
function errorsOf(run: () => unknown): { field: string; rule: string; message: string }[] {
  try {
    run();
  } catch (error) {
    const list = error instanceof ValidationErrors ? error.errors : [error];
    return list.map((e) => {
      if (!(e instanceof ValidationError)) throw e;
      return { field: e.field, rule: e.rule, message: e.message };
    });
  }
  throw new Error('expected a validation failure');
}

describe('redirect URI edges', () => {
  it('names redirect_uri when no entry index is given, redirect_urls[i] when one is', () => {
    expect(errorsOf(() => normalizeRedirectUri(''))).toEqual([
      { field: 'redirect_uri', rule: 'must not be empty', message: 'redirect_uri: must not be empty' },
    ]);
    expect(errorsOf(() => normalizeRedirectUri('', 3))[0]?.field).toBe('redirect_urls[3]');
  });

  it(`accepts exactly ${MAX_REDIRECT_URL_LENGTH} characters`, () => {
    const prefix = 'https://example.com/';
    const longest = prefix + 'a'.repeat(MAX_REDIRECT_URL_LENGTH - prefix.length);
    expect(normalizeRedirectUri(longest).uri).toBe(longest);
    expect(errorsOf(() => normalizeRedirectUri(`${longest}a`))[0]?.rule).toBe(
      `at most ${MAX_REDIRECT_URL_LENGTH} characters`,
    );
  });

  it('refuses a scheme that does not start the text', () => {
    expect(errorsOf(() => normalizeRedirectUri('1abc:/cb'))[0]?.rule).toBe(
      'must be an absolute URL with a scheme',
    );
  });

  it.each([
    ['x+com.example:/cb', 'a valid native scheme at its end'],
    ['com.example+x:/cb', 'a valid native scheme at its start'],
  ])('refuses the scheme of %s (%s)', (uri) => {
    expect(errorsOf(() => normalizeRedirectUri(uri))[0]?.rule).toBe(
      'scheme must be https, http on a loopback host, or a reverse-DNS native scheme',
    );
  });

  it.each(['https:user@example.com/cb', 'https::secret@example.com/cb', 'https:user:secret@example.com/cb'])(
    'refuses userinfo written without // (%s)',
    (uri) => {
      expect(errorsOf(() => normalizeRedirectUri(uri))[0]?.rule).toBe('no userinfo (user:password@)');
    },
  );

  it('accepts an @ in the path of a native URI', () => {
    expect(normalizeRedirectUri('com.example:/cb:x://y@z')).toEqual({
      uri: 'com.example:/cb:x://y@z',
      kind: 'native',
    });
  });
});

describe('scope edges', () => {
  it('grants a client without allowed scopes the default list, identity scopes only to users', () => {
    const all = [
      'printing',
      'printing.connectors',
      'reporting',
      'account',
      'webhooks',
      'webhooks.readonly',
      'openid',
      'profile',
      'email',
    ];
    expect(DEFAULT_GRANTABLE_SCOPES).toEqual(all);
    expect(grantableScopes(undefined, [], 'password')).toEqual({ ok: true, scopes: all });
    expect(grantableScopes('', [], 'client_credentials')).toEqual({
      ok: true,
      scopes: all.filter((s) => !['openid', 'profile', 'email'].includes(s)),
    });
  });

  it('lets user grants ask for identity scopes', () => {
    for (const grant of ['password', 'authorization_code', 'pairing_code'] as const) {
      expect(grantableScopes('openid profile email', [], grant)).toEqual({
        ok: true,
        scopes: ['openid', 'profile', 'email'],
      });
    }
  });

  it('reads the previous grant on refresh only, and keeps of it what the client may still have', () => {
    const previouslyGranted = ['printing', 'reporting'];
    expect(grantableScopes(undefined, ['printing'], 'refresh_token', { previouslyGranted })).toEqual({
      ok: true,
      scopes: ['printing'],
    });
    expect(grantableScopes(undefined, ['printing', 'account'], 'password', { previouslyGranted })).toEqual({
      ok: true,
      scopes: ['printing', 'account'],
    });
  });

  it('names the rule of each allowed_scopes refusal, and the scopes allowed', () => {
    expect(SCOPE_NOT_PERMITTED_MESSAGE).toBe('One or more requested scopes are not permitted via the API.');
    expect(errorsOf(() => parseAllowedScopes('account.admin'))).toEqual([
      { field: 'allowed_scopes', rule: 'not permitted via the API', message: SCOPE_NOT_PERMITTED_MESSAGE },
    ]);
    expect(errorsOf(() => parseAllowedScopes('printing nope'))).toEqual([
      {
        field: 'allowed_scopes',
        rule: 'unknown scope',
        message:
          'allowed_scopes: unknown scope "nope"; allowed are the families printing, account, reporting, cloud, ' +
          'webhooks (bare or with a dotted suffix) and openid, profile, email',
      },
    ]);
    expect(errorsOf(() => parseAllowedScopes('p'.repeat(2049)))[0]?.rule).toBe('at most 2048 characters');
  });

  it('asks webhooks.readonly for GET and HEAD in any case, webhooks for the rest', () => {
    expect(['GET', 'get', 'HEAD', 'head'].map(webhookScopeFor)).toEqual(Array(4).fill('webhooks.readonly'));
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(webhookScopeFor)).toEqual(Array(4).fill('webhooks'));
  });
});

describe('client rule edges', () => {
  it('reads tenant_mode single and multi as written', () => {
    expect(parseTenantMode('single')).toBe('single');
    expect(parseTenantMode('multi')).toBe('multi');
  });

  it('reads a null grant_types as missing and a non-string entry as unsupported', () => {
    expect(errorsOf(() => parseConfidentialGrantTypes(null))).toEqual([
      { field: 'grant_types', rule: 'is required', message: 'grant_types: is required' },
    ]);
    expect(errorsOf(() => parseConfidentialGrantTypes([42]))[0]?.rule).toBe(
      'exactly one of authorization_code or pairing_code',
    );
  });

  it('reads null redirect_urls as none', () => {
    const settings = validateNewClient('confidential', {
      name: 'Kiosk',
      grant_types: ['pairing_code'],
      redirect_urls: null,
    });
    expect(settings.redirectUrls).toEqual([]);
  });

  it('asks a public client for a redirect URL even when its grant_types is refused', () => {
    const errors = errorsOf(() =>
      validateNewClient('public', { name: 'SPA', grant_types: ['authorization_code'] }),
    );
    expect(errors.map((e) => `${e.field}: ${e.rule}`)).toEqual([
      'grant_types: not accepted for public clients (always authorization_code)',
      'redirect_urls: is required',
    ]);
  });

  it('keeps a redirect URL on a public client whatever grants it lists', () => {
    expect(
      errorsOf(() => validateClientPatch({ redirect_urls: [] }, { clientType: 'public', grantTypes: [] })),
    ).toEqual([
      {
        field: 'redirect_urls',
        rule: 'needs at least one URL',
        message: 'redirect_urls: needs at least one URL',
      },
    ]);
    expect(
      validateClientPatch({ redirect_urls: [] }, { clientType: 'confidential', grantTypes: [] }),
    ).toEqual({
      redirectUrls: [],
    });
  });

  it('names the fields PATCH accepts when it refuses an unknown one', () => {
    const errors = errorsOf(() =>
      validateClientPatch({ color: 'red' }, { clientType: 'confidential', grantTypes: [] }),
    );
    expect(errors).toEqual([
      {
        field: 'color',
        rule: 'unknown field; PATCH accepts only name, external_description, redirect_urls, allowed_scopes',
        message:
          'color: unknown field; PATCH accepts only name, external_description, redirect_urls, allowed_scopes',
      },
    ]);
  });
});
