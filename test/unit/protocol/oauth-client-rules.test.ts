import { describe, expect, it } from 'vitest';
import {
  type ClientType,
  type ExistingClient,
  validateClientPatch,
  validateNewClient,
} from '../../../src/protocol/oauth-client-rules.js';
import { SCOPE_NOT_PERMITTED_MESSAGE } from '../../../src/protocol/oauth-scopes.js';
import { thrownValidationErrors } from '../../support/validation-refusals.js';

const base = { name: 'Demo App', redirect_urls: ['https://app.example/cb'] };

type CreateCase = [string, ClientType, Record<string, unknown>, Record<string, unknown>];
/** [title, client type, body, expected subset of the settings] */
const createAccepted: CreateCase[] = [
  [
    'public minimal',
    'public',
    base,
    { grantTypes: ['authorization_code'], tenantMode: 'single', allowedScopes: [] },
  ],
  [
    'public with description',
    'public',
    { ...base, external_description: 'Prints things' },
    { externalDescription: 'Prints things' },
  ],
  ['public tenant multi', 'public', { ...base, tenant_mode: 'multi' }, { tenantMode: 'multi' }],
  [
    'public tenant null defaults to single',
    'public',
    { ...base, tenant_mode: null },
    { tenantMode: 'single' },
  ],
  ['full-width tenant mode', 'public', { ...base, tenant_mode: 'ｍｕｌｔｉ' }, { tenantMode: 'multi' }],
  [
    'scopes string to array',
    'public',
    { ...base, allowed_scopes: 'printing openid' },
    { allowedScopes: ['printing', 'openid'] },
  ],
  [
    'bare account scope allowed',
    'public',
    { ...base, allowed_scopes: 'account' },
    { allowedScopes: ['account'] },
  ],
  ['unknown fields ignored', 'public', { ...base, color: 'blue', client_secret: 'x' }, { name: 'Demo App' }],
  [
    'client_type in body ignored',
    'public',
    { ...base, client_type: 'confidential' },
    { clientType: 'public' },
  ],
  ['name trimmed', 'public', { ...base, name: '  Demo  ' }, { name: 'Demo' }],
  ['name NFKC (full-width)', 'public', { ...base, name: 'Ｄｅｍｏ' }, { name: 'Demo' }],
  ['name NFKC (ligature)', 'public', { ...base, name: 'ﬁle app' }, { name: 'file app' }],
  ['name 255 chars', 'public', { ...base, name: 'n'.repeat(255) }, { name: 'n'.repeat(255) }],
  [
    'description with newlines',
    'public',
    { ...base, external_description: 'Line 1\r\nLine 2\tend' },
    { externalDescription: 'Line 1\r\nLine 2\tend' },
  ],
  ['description null', 'public', { ...base, external_description: null }, { externalDescription: '' }],
  [
    'redirects normalized',
    'public',
    { ...base, redirect_urls: ['HTTPS://APP.example:443/cb'] },
    { redirectUrls: ['https://app.example/cb'] },
  ],
  [
    'IDN redirect in punycode',
    'public',
    { ...base, redirect_urls: ['https://bücher.example/cb'] },
    { redirectUrls: ['https://xn--bcher-kva.example/cb'] },
  ],
  [
    'loopback and native',
    'public',
    { ...base, redirect_urls: ['http://localhost/cb', 'com.example.app:/cb'] },
    { redirectUrls: ['http://localhost/cb', 'com.example.app:/cb'] },
  ],
  [
    'a percent-encoded %23 is a path character, not a fragment',
    'public',
    { ...base, redirect_urls: ['https://a.example/cb%23x'] },
    { redirectUrls: ['https://a.example/cb%23x'] },
  ],
  [
    'confidential authorization_code',
    'confidential',
    { ...base, grant_types: ['authorization_code'] },
    { grantTypes: ['authorization_code'], clientType: 'confidential' },
  ],
  [
    'confidential pairing without redirects',
    'confidential',
    { name: 'Kiosk', grant_types: ['pairing_code'] },
    { grantTypes: ['pairing_code'], redirectUrls: [] },
  ],
  [
    'confidential pairing empty redirects',
    'confidential',
    { name: 'Kiosk', grant_types: ['pairing_code'], redirect_urls: [] },
    { redirectUrls: [] },
  ],
  [
    'confidential pairing with redirects',
    'confidential',
    { ...base, grant_types: ['pairing_code'] },
    { redirectUrls: ['https://app.example/cb'] },
  ],
  [
    'scopes with tabs and newlines',
    'public',
    { ...base, allowed_scopes: '\tprinting\n\r reporting  ' },
    { allowedScopes: ['printing', 'reporting'] },
  ],
  [
    'scopes with ideographic space',
    'public',
    { ...base, allowed_scopes: 'printing\u3000email' },
    { allowedScopes: ['printing', 'email'] },
  ],
  [
    'scopes exactly 2048 characters',
    'public',
    { ...base, allowed_scopes: `${'email '.repeat(340)}printing` },
    { allowedScopes: ['email', 'printing'] },
  ],
  [
    'native scheme mixed case',
    'public',
    { ...base, redirect_urls: ['COM.Example.App:/cb'] },
    { redirectUrls: ['com.example.app:/cb'] },
  ],
  [
    'loopback any port',
    'public',
    { ...base, redirect_urls: ['http://localhost:49152/cb'] },
    { redirectUrls: ['http://localhost:49152/cb'] },
  ],
  [
    '20 redirects',
    'public',
    { ...base, redirect_urls: Array.from({ length: 20 }, (_, i) => `https://a.example/${i}`) },
    { name: 'Demo App' },
  ],
  [
    'full-width grant type',
    'confidential',
    { ...base, grant_types: ['ａｕｔｈｏｒｉｚａｔｉｏｎ_ｃｏｄｅ'] },
    { grantTypes: ['authorization_code'] },
  ],
];

/** [title, client type, body, field, rule fragment] */
type CreateFailure = [string, ClientType, unknown, string, string];
const createRefused: CreateFailure[] = [
  ['body not an object', 'public', 'name=x', 'body', 'must be a JSON object'],
  ['body an array', 'public', [base], 'body', 'must be a JSON object'],
  ['body null', 'public', null, 'body', 'must be a JSON object'],
  ['name missing', 'public', { redirect_urls: base.redirect_urls }, 'name', 'is required'],
  ['name empty', 'public', { ...base, name: '' }, 'name', 'must not be empty'],
  ['name whitespace only', 'public', { ...base, name: ' \u3000 ' }, 'name', 'must not be empty'],
  ['name a number', 'public', { ...base, name: 7 }, 'name', 'must be a string'],
  ['name too long', 'public', { ...base, name: 'n'.repeat(256) }, 'name', 'at most 255 characters'],
  [
    'name grows past the limit under NFKC',
    'public',
    { ...base, name: 'ﬃ'.repeat(100) },
    'name',
    'at most 255 characters',
  ],
  ['name with newline', 'public', { ...base, name: 'a\nb' }, 'name', 'no control characters'],
  ['name with NUL', 'public', { ...base, name: 'a\u0000b' }, 'name', 'no control characters'],
  [
    'description too long',
    'public',
    { ...base, external_description: 'd'.repeat(1001) },
    'external_description',
    'at most 1000',
  ],
  [
    'description an object',
    'public',
    { ...base, external_description: {} },
    'external_description',
    'must be a string',
  ],
  [
    'description with bell',
    'public',
    { ...base, external_description: 'x\u0007' },
    'external_description',
    'no control characters',
  ],
  ['public without redirects', 'public', { name: 'x' }, 'redirect_urls', 'is required'],
  [
    'public with empty redirects',
    'public',
    { name: 'x', redirect_urls: [] },
    'redirect_urls',
    'needs at least one URL',
  ],
  [
    'public redirects a string',
    'public',
    { name: 'x', redirect_urls: 'https://a.example/' },
    'redirect_urls',
    'must be an array',
  ],
  [
    'public grant_types given',
    'public',
    { ...base, grant_types: ['authorization_code'] },
    'grant_types',
    'not accepted for public clients',
  ],
  [
    'public grant_types null is still given',
    'public',
    { ...base, grant_types: null },
    'grant_types',
    'not accepted for public clients',
  ],
  [
    'tenant mode unknown',
    'public',
    { ...base, tenant_mode: 'both' },
    'tenant_mode',
    'must be single or multi',
  ],
  [
    'tenant mode upper case',
    'public',
    { ...base, tenant_mode: 'SINGLE' },
    'tenant_mode',
    'must be single or multi',
  ],
  ['tenant mode boolean', 'public', { ...base, tenant_mode: true }, 'tenant_mode', 'must be single or multi'],
  ['confidential without grant_types', 'confidential', base, 'grant_types', 'is required'],
  [
    'confidential with both grants',
    'confidential',
    { ...base, grant_types: ['authorization_code', 'pairing_code'] },
    'grant_types',
    'exactly one',
  ],
  ['confidential with no grant', 'confidential', { ...base, grant_types: [] }, 'grant_types', 'exactly one'],
  [
    'confidential with password grant',
    'confidential',
    { ...base, grant_types: ['password'] },
    'grant_types',
    'exactly one',
  ],
  [
    'confidential with client_credentials',
    'confidential',
    { ...base, grant_types: ['client_credentials'] },
    'grant_types',
    'exactly one',
  ],
  [
    'confidential grant_types a string',
    'confidential',
    { ...base, grant_types: 'authorization_code' },
    'grant_types',
    'must be an array',
  ],
  [
    'confidential grant type mixed case',
    'confidential',
    { ...base, grant_types: ['Authorization_Code'] },
    'grant_types',
    'exactly one',
  ],
  [
    'confidential code grant without redirects',
    'confidential',
    { name: 'x', grant_types: ['authorization_code'] },
    'redirect_urls',
    'is required',
  ],
  [
    'confidential code grant empty redirects',
    'confidential',
    { name: 'x', grant_types: ['authorization_code'], redirect_urls: [] },
    'redirect_urls',
    'needs at least one',
  ],
  [
    'pairing client bad redirect',
    'confidential',
    { name: 'x', grant_types: ['pairing_code'], redirect_urls: ['http://evil.example/'] },
    'redirect_urls[0]',
    'http is allowed only',
  ],
  [
    'fragment redirect',
    'public',
    { name: 'x', redirect_urls: ['https://a.example/cb#x'] },
    'redirect_urls[0]',
    'no fragments',
  ],
  [
    'http on a loopback address other than localhost',
    'public',
    { name: 'x', redirect_urls: ['https://a.example/ok', 'http://127.0.0.1/cb'] },
    'redirect_urls[1]',
    'http is allowed only as http://localhost (any port and path); use https',
  ],
  [
    'wildcard redirect',
    'public',
    { name: 'x', redirect_urls: ['https://*.a.example/cb'] },
    'redirect_urls[0]',
    'no wildcards',
  ],
  [
    'userinfo redirect',
    'public',
    { name: 'x', redirect_urls: ['https://me@a.example/cb'] },
    'redirect_urls[0]',
    'no userinfo',
  ],
  [
    '21 redirects',
    'public',
    { name: 'x', redirect_urls: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) },
    'redirect_urls',
    'at most 20',
  ],
  [
    'scope unknown',
    'public',
    { ...base, allowed_scopes: 'printing admin' },
    'allowed_scopes',
    'unknown scope',
  ],
  [
    'scopes as array',
    'public',
    { ...base, allowed_scopes: ['printing'] },
    'allowed_scopes',
    'space-separated string',
  ],
  [
    'scopes over 2048',
    'public',
    { ...base, allowed_scopes: 'printing '.repeat(300) },
    'allowed_scopes',
    'at most 2048',
  ],
  [
    'scopes 2049 characters',
    'public',
    { ...base, allowed_scopes: `${'email '.repeat(340)}printing2` },
    'allowed_scopes',
    'at most 2048 characters (got 2049)',
  ],
  [
    'IDN look-alike http host',
    'public',
    { name: 'x', redirect_urls: ['http://lоcalhost/cb'] },
    'redirect_urls[0]',
    'http is allowed only',
  ],
  [
    'full-width fragment',
    'public',
    { name: 'x', redirect_urls: ['https://a.example/cb＃x'] },
    'redirect_urls[0]',
    'no fragments',
  ],
  [
    'non-breaking space in redirect',
    'public',
    { name: 'x', redirect_urls: ['https://a.example/\u00a0cb'] },
    'redirect_urls[0]',
    'whitespace',
  ],
  [
    'look-alike Cyrillic scope',
    'public',
    { ...base, allowed_scopes: 'рrinting' },
    'allowed_scopes',
    'unknown scope',
  ],
];

describe('validateNewClient: accepted', () => {
  it.each(createAccepted)('%s', (_title, clientType, body, expected) => {
    expect(validateNewClient(clientType, body)).toMatchObject({ clientType, ...expected });
  });
});

describe('validateNewClient: refused', () => {
  it.each(createRefused)('%s', (_title, clientType, body, field, rule) => {
    const errors = thrownValidationErrors(() => validateNewClient(clientType, body));
    const match = errors.find((e) => e.field === field);
    expect(match, errors.map((e) => e.message).join('; ')).toBeDefined();
    expect(match?.message).toContain(rule);
  });
});

describe('validateNewClient: internal scopes', () => {
  it.each([
    'account.admin',
    'printing account.users',
    'ａｃｃｏｕｎｔ.admin',
    'account\uFF0Eadmin',
    'ACCOUNT.ADMIN',
    'printing\u3000account.x',
  ])('%j gives the generic 400 message without echo', (scopes) => {
    const errors = thrownValidationErrors(() =>
      validateNewClient('public', { ...base, allowed_scopes: scopes }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('allowed_scopes');
    expect(errors[0]?.message).toBe(SCOPE_NOT_PERMITTED_MESSAGE);
  });
});

describe('validateNewClient: every broken rule at once', () => {
  it('reports name, tenant_mode and redirect errors together', () => {
    const errors = thrownValidationErrors(() =>
      validateNewClient('public', {
        name: '',
        tenant_mode: 'x',
        grant_types: [],
        redirect_urls: ['ftp://a/'],
      }),
    );
    expect(errors.map((e) => e.field)).toEqual(['name', 'tenant_mode', 'grant_types', 'redirect_urls[0]']);
  });
});

const publicClient: ExistingClient = { clientType: 'public', grantTypes: ['authorization_code'] };
const pairingClient: ExistingClient = { clientType: 'confidential', grantTypes: ['pairing_code'] };
const codeClient: ExistingClient = { clientType: 'confidential', grantTypes: ['authorization_code'] };

/** [title, existing, body, expected patch] */
const patchAccepted: Array<[string, ExistingClient, Record<string, unknown>, Record<string, unknown>]> = [
  ['empty patch', publicClient, {}, {}],
  ['name only', publicClient, { name: 'New' }, { name: 'New' }],
  ['description only', codeClient, { external_description: 'Hello' }, { externalDescription: 'Hello' }],
  ['clear description', codeClient, { external_description: null }, { externalDescription: '' }],
  [
    'scopes',
    publicClient,
    { allowed_scopes: 'printing reporting' },
    { allowedScopes: ['printing', 'reporting'] },
  ],
  ['scopes emptied', publicClient, { allowed_scopes: '' }, { allowedScopes: [] }],
  [
    'redirects',
    publicClient,
    { redirect_urls: ['HTTP://LOCALHOST:8/x'] },
    { redirectUrls: ['http://localhost:8/x'] },
  ],
  ['pairing client clears redirects', pairingClient, { redirect_urls: [] }, { redirectUrls: [] }],
  ['pairing client null redirects', pairingClient, { redirect_urls: null }, { redirectUrls: [] }],
  [
    'all four',
    codeClient,
    { name: 'A', external_description: 'B', redirect_urls: ['https://c.example/'], allowed_scopes: 'email' },
    { name: 'A', externalDescription: 'B', redirectUrls: ['https://c.example/'], allowedScopes: ['email'] },
  ],
];

/** [title, existing, body, field, rule fragment] */
const patchRefused: Array<[string, ExistingClient, unknown, string, string]> = [
  ['tenant_mode', publicClient, { tenant_mode: 'multi' }, 'tenant_mode', 'fixed at creation'],
  ['tenant_mode same value', publicClient, { tenant_mode: 'single' }, 'tenant_mode', 'fixed at creation'],
  ['client_type', publicClient, { client_type: 'confidential' }, 'client_type', 'fixed at creation'],
  ['grant_types', codeClient, { grant_types: ['pairing_code'] }, 'grant_types', 'fixed at creation'],
  ['unknown field', publicClient, { name: 'x', color: 'blue' }, 'color', 'unknown field'],
  ['client_secret', codeClient, { client_secret: 'new' }, 'client_secret', 'unknown field'],
  ['client_id', codeClient, { client_id: 'other' }, 'client_id', 'unknown field'],
  ['look-alike field name', publicClient, { nаme: 'x' }, 'nаme', 'unknown field'],
  ['body array', publicClient, [], 'body', 'must be a JSON object'],
  ['name empty', publicClient, { name: '   ' }, 'name', 'must not be empty'],
  ['name null', publicClient, { name: null }, 'name', 'is required'],
  ['public clears redirects', publicClient, { redirect_urls: [] }, 'redirect_urls', 'needs at least one'],
  [
    'code client clears redirects',
    codeClient,
    { redirect_urls: null },
    'redirect_urls',
    'needs at least one',
  ],
  [
    'bad redirect',
    codeClient,
    { redirect_urls: ['https://a.example/#'] },
    'redirect_urls[0]',
    'no fragments',
  ],
  [
    'internal scope',
    publicClient,
    { allowed_scopes: 'account.admin' },
    'allowed_scopes',
    SCOPE_NOT_PERMITTED_MESSAGE,
  ],
  ['long scopes', publicClient, { allowed_scopes: 'email '.repeat(400) }, 'allowed_scopes', 'at most 2048'],
];

describe('validateClientPatch: accepted', () => {
  it.each(patchAccepted)('%s', (_title, existing, body, expected) => {
    expect(validateClientPatch(body, existing)).toEqual(expected);
  });
});

describe('validateClientPatch: refused', () => {
  it.each(patchRefused)('%s', (_title, existing, body, field, rule) => {
    const errors = thrownValidationErrors(() => validateClientPatch(body, existing));
    const match = errors.find((e) => e.field === field);
    expect(match, errors.map((e) => e.message).join('; ')).toBeDefined();
    expect(match?.message).toContain(rule);
  });
  it('names every forbidden field at once', () => {
    const errors = thrownValidationErrors(() =>
      validateClientPatch({ tenant_mode: 'x', grant_types: [], foo: 1 }, codeClient),
    );
    expect(errors.map((e) => e.field)).toEqual(['tenant_mode', 'grant_types', 'foo']);
  });
});
