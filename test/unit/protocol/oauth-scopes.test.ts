import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/lib/errors.js';
import {
  DEFAULT_GRANTABLE_SCOPES,
  type GrantType,
  REQUIRED_SCOPE,
  SCOPE_NOT_PERMITTED_MESSAGE,
  grantableScopes,
  parseAllowedScopes,
  scopeSatisfies,
  splitScopes,
  webhookScopeFor,
} from '../../../src/protocol/oauth-scopes.js';

/** [input, parsed array] */
const allowed: Array<[unknown, string[]]> = [
  [undefined, []],
  [null, []],
  ['', []],
  ['   ', []],
  ['printing', ['printing']],
  ['printing printing.connectors', ['printing', 'printing.connectors']],
  ['printing  \t reporting\nwebhooks', ['printing', 'reporting', 'webhooks']],
  [' printing ', ['printing']],
  ['printing printing', ['printing']],
  ['account', ['account']],
  ['reporting.read cloud.files webhooks.readonly', ['reporting.read', 'cloud.files', 'webhooks.readonly']],
  ['cloud', ['cloud']],
  ['openid profile email', ['openid', 'profile', 'email']],
  ['ｐｒｉｎｔｉｎｇ', ['printing']],
  ['printing\u3000reporting', ['printing', 'reporting']],
  ['printing\u00a0reporting', ['printing', 'reporting']],
  ['ﬁ'.replace('ﬁ', 'printing.ﬁles'), ['printing.files']],
  ['webhooks.read_only-x', ['webhooks.read_only-x']],
];

/** [input, rule fragment] — non-internal failures */
const badScopes: Array<[unknown, string]> = [
  [42, 'must be a space-separated string'],
  [['printing'], 'must be a space-separated string'],
  ['admin', 'unknown scope "admin"'],
  ['printing admin', 'unknown scope "admin"'],
  ['Printing', 'unknown scope "Printing"'],
  ['printing.', 'unknown scope'],
  ['.printing', 'unknown scope'],
  ['printing..x', 'unknown scope'],
  ['printing,reporting', 'unknown scope'],
  ['printing.*', 'unknown scope'],
  ['*', 'unknown scope'],
  ['printingx', 'unknown scope'],
  ['openid.extra', 'unknown scope'],
  ['prіnting', 'unknown scope'],
  ['ｐｒｉｎｔｉｎｇ.*', 'unknown scope'],
  [`${'printing '.repeat(228)}x`, 'at most 2048 characters'],
  ['ﬃ'.repeat(1000), 'at most 2048 characters'],
];

/** Inputs that hide an internal account.* scope. */
const internal: string[] = [
  'account.admin',
  'printing account.admin',
  'account.',
  'ａｃｃｏｕｎｔ.admin',
  'account．admin',
  'ACCOUNT.admin',
  'Account.Admin',
  'printing\taccount.internal.x',
  'account.ﬁle',
];

describe('parseAllowedScopes: accepted', () => {
  it.each(allowed)('%j', (input, expected) => {
    expect(parseAllowedScopes(input)).toEqual(expected);
  });
  it('accepts exactly 2048 characters', () => {
    const input = `${'printing '.repeat(226)}printing.${'a'.repeat(2048 - 226 * 9 - 9)}`;
    expect(input).toHaveLength(2048);
    expect(parseAllowedScopes(input)).toHaveLength(2);
  });
});

describe('parseAllowedScopes: refused', () => {
  it.each(badScopes)('%j', (input, rule) => {
    expect(() => parseAllowedScopes(input)).toThrow(ValidationError);
    expect(() => parseAllowedScopes(input)).toThrow(`allowed_scopes: ${rule}`.slice(0, 20));
    try {
      parseAllowedScopes(input);
    } catch (error) {
      expect((error as ValidationError).field).toBe('allowed_scopes');
      expect((error as ValidationError).message).toContain(rule);
    }
  });
});

describe('parseAllowedScopes: internal account.* scopes', () => {
  it.each(internal)('%j gives the generic message without the value', (input) => {
    let caught: unknown;
    try {
      parseAllowedScopes(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('allowed_scopes');
    expect((caught as ValidationError).message).toBe(SCOPE_NOT_PERMITTED_MESSAGE);
    expect((caught as ValidationError).message).not.toMatch(/admin|internal|account\./i);
  });
});

describe('splitScopes', () => {
  it('splits on whitespace runs, keeps order, drops duplicates', () => {
    expect(splitScopes(' b  a\tb\n c ')).toEqual(['b', 'a', 'c']);
  });
});

type GrantCase = [string | undefined, string[], GrantType, string[] | string];
/** [requested, client allowed, grant type, granted scopes or error fragment] */
const grants: GrantCase[] = [
  ['printing', [], 'password', ['printing']],
  [undefined, [], 'password', [...DEFAULT_GRANTABLE_SCOPES]],
  ['', ['printing'], 'authorization_code', ['printing']],
  [
    'printing printing.connectors',
    ['printing', 'printing.connectors'],
    'pairing_code',
    ['printing', 'printing.connectors'],
  ],
  ['printing.connectors', ['printing'], 'pairing_code', ['printing.connectors']],
  ['webhooks.readonly', ['webhooks'], 'authorization_code', ['webhooks.readonly']],
  ['webhooks', ['webhooks.readonly'], 'authorization_code', 'webhooks is not allowed for this client'],
  ['reporting', ['printing'], 'password', 'reporting is not allowed for this client'],
  ['printing admin', [], 'password', 'unknown scope'],
  ['account.admin', [], 'password', 'not permitted'],
  ['printing.x', ['printing'], 'password', ['printing.x']],
  ['printing', ['printing.connectors'], 'password', 'printing is not allowed for this client'],
  ['account', ['account'], 'authorization_code', ['account']],
  ['openid', [], 'client_credentials', 'needs a signed-in user'],
  [undefined, ['printing', 'openid'], 'client_credentials', ['printing']],
  [undefined, ['openid'], 'client_credentials', 'no scope can be granted'],
  ['printing', [], 'refresh_token', ['printing']],
  ['reporting', [], 'refresh_token', 'exceeds the scope of the original grant'],
  [undefined, [], 'refresh_token', ['printing']],
  ['ｐｒｉｎｔｉｎｇ', ['printing'], 'password', ['printing']],
];

describe('grantableScopes', () => {
  it.each(grants)('%j from %j via %s', (requested, clientAllowed, grantType, expected) => {
    const options = grantType === 'refresh_token' ? { previouslyGranted: ['printing'] } : {};
    const result = grantableScopes(requested, clientAllowed, grantType, options);
    if (Array.isArray(expected)) {
      expect(result).toEqual({ ok: true, scopes: expected });
    } else {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toBe('invalid_scope');
        expect(result.description).toMatch(/^scope: /);
        expect(result.description).toContain(expected);
      }
    }
  });
});

describe('scope each API requires', () => {
  it.each([
    [['printing'], REQUIRED_SCOPE.sfapi, true],
    [['printing.connectors'], REQUIRED_SCOPE.sfapi, false],
    [['printing'], REQUIRED_SCOPE.connector, true],
    [['printing.connectors'], REQUIRED_SCOPE.connector, true],
    [['reporting'], REQUIRED_SCOPE.connector, false],
    [['webhooks'], webhookScopeFor('GET'), true],
    [['webhooks.readonly'], webhookScopeFor('get'), true],
    [['webhooks.readonly'], webhookScopeFor('POST'), false],
    [['webhooks.readonly'], webhookScopeFor('DELETE'), false],
    [['webhooks'], webhookScopeFor('PATCH'), true],
    [['account'], REQUIRED_SCOPE.account, true],
    [['printing'], REQUIRED_SCOPE.account, false],
    [['printingx'], REQUIRED_SCOPE.sfapi, false],
    [[], REQUIRED_SCOPE.sfapi, false],
  ] as Array<[string[], string, boolean]>)('%j covers %s: %s', (granted, required, expected) => {
    expect(scopeSatisfies(granted, required)).toBe(expected);
  });
  it('names the scopes of every API', () => {
    expect(REQUIRED_SCOPE).toEqual({
      sfapi: 'printing',
      connector: 'printing.connectors',
      'webhooks-read': 'webhooks.readonly',
      'webhooks-write': 'webhooks',
      account: 'account',
      reporting: 'reporting',
    });
  });
});
