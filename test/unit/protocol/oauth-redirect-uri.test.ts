import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/lib/errors.js';
import {
  codeRedirect,
  errorRedirect,
  matchRedirectUri,
  normalizeRedirectUri,
  parseRedirectUrls,
} from '../../../src/protocol/oauth-redirect-uri.js';

/** [input, normalized form, kind] */
const accepted: Array<[string, string, string]> = [
  ['https://example.com/callback', 'https://example.com/callback', 'https'],
  ['https://example.com', 'https://example.com/', 'https'],
  ['HTTPS://Example.COM/Cb', 'https://example.com/Cb', 'https'],
  ['HtTpS://EXAMPLE.com/path', 'https://example.com/path', 'https'],
  ['https://example.com:443/cb', 'https://example.com/cb', 'https'],
  ['https://example.com:8443/cb', 'https://example.com:8443/cb', 'https'],
  ['https://example.com/cb?x=1&y=2', 'https://example.com/cb?x=1&y=2', 'https'],
  ['https://example.com/a/../b/./c', 'https://example.com/b/c', 'https'],
  ['https://bücher.example/cb', 'https://xn--bcher-kva.example/cb', 'https'],
  ['https://BÜCHER.example/cb', 'https://xn--bcher-kva.example/cb', 'https'],
  ['https://xn--bcher-kva.example/cb', 'https://xn--bcher-kva.example/cb', 'https'],
  ['https://例え.jp/cb', 'https://xn--r8jz45g.jp/cb', 'https'],
  ['https://example。com/cb', 'https://example.com/cb', 'https'],
  ['https://example．com/cb', 'https://example.com/cb', 'https'],
  ['ｈｔｔｐｓ://example.com/cb', 'https://example.com/cb', 'https'],
  ['https://ｅｘａｍｐｌｅ.com/cb', 'https://example.com/cb', 'https'],
  ['https：//example.com/cb', 'https://example.com/cb', 'https'],
  ['https://ex%41mple.com/', 'https://example.com/', 'https'],
  ['https://1.2.3.4/cb', 'https://1.2.3.4/cb', 'https'],
  ['https://example.com/caf%C3%A9', 'https://example.com/caf%C3%A9', 'https'],
  ['https://example.com/café', 'https://example.com/caf%C3%A9', 'https'],
  ['http://localhost/cb', 'http://localhost/cb', 'loopback'],
  ['http://localhost:8080/cb', 'http://localhost:8080/cb', 'loopback'],
  ['http://LOCALHOST:1/x/y', 'http://localhost:1/x/y', 'loopback'],
  ['HTTP://localhost:65535', 'http://localhost:65535/', 'loopback'],
  ['http://localhost:53122/oauth', 'http://localhost:53122/oauth', 'loopback'],
  ['https://example.com/cb%23frag', 'https://example.com/cb%23frag', 'https'],
  ['https://example.com/cb?next=%23x', 'https://example.com/cb?next=%23x', 'https'],
  ['https://example.com/cb?x=%2A', 'https://example.com/cb?x=%2A', 'https'],
  ['http://localhost:80/cb', 'http://localhost/cb', 'loopback'],
  ['com.example.app:/callback', 'com.example.app:/callback', 'native'],
  ['Com.Example.App:/callback', 'com.example.app:/callback', 'native'],
  ['com.example.app://callback', 'com.example.app://callback', 'native'],
  ['io.github.user-name.tool:/oauth2redirect', 'io.github.user-name.tool:/oauth2redirect', 'native'],
  ['com.example:/cb', 'com.example:/cb', 'native'],
];

/** [input, fragment of the rule in the error] */
const refused: Array<[string, string]> = [
  ['', 'must not be empty'],
  ['example.com/callback', 'scheme'],
  ['/callback', 'scheme'],
  ['http://example.com/cb', 'http is allowed only'],
  ['http://localhost.example.com/cb', 'http is allowed only'],
  ['http://127.0.0.2/cb', 'http is allowed only'],
  ['http://0.0.0.0/cb', 'http is allowed only'],
  ['http://localhost./cb', 'http is allowed only'],
  ['ftp://example.com/', 'scheme must be'],
  ['javascript:alert(1)', 'scheme must be'],
  ['data:text/html,hi', 'scheme must be'],
  ['file:///etc/passwd', 'scheme must be'],
  ['myapp:/callback', 'scheme must be'],
  ['ws://localhost/cb', 'scheme must be'],
  ['https://example.com/cb#frag', 'no fragments'],
  ['https://example.com/cb#', 'no fragments'],
  ['http://127.0.0.1:53122/oauth', 'http is allowed only as http://localhost'],
  ['http://[::1]:5000/x', 'http is allowed only as http://localhost'],
  ['https://example.com/cb＃frag', 'no fragments'],
  ['com.example.app:/cb#x', 'no fragments'],
  ['https://*.example.com/cb', 'no wildcards'],
  ['https://example.com/*', 'no wildcards'],
  ['https://example.com/cb＊', 'no wildcards'],
  ['https://user@example.com/cb', 'no userinfo'],
  ['https://user:pw@example.com/cb', 'no userinfo'],
  ['https://@example.com/cb', 'no userinfo'],
  ['https://:@example.com/cb', 'no userinfo'],
  ['http://user@localhost/cb', 'no userinfo'],
  ['com.example.app://user@callback', 'no userinfo'],
  ['https://example.com\\@evil.com/', 'backslashes'],
  ['https://example.com/c b', 'whitespace'],
  [' https://example.com/cb', 'whitespace'],
  ['https://example.com/cb\n', 'whitespace'],
  ['https://exa\tmple.com/', 'whitespace'],
  ['https://example.com/\u00a0', 'whitespace'],
  ['https://exa\u200bmple.com/', 'invisible'],
  ['https://example.com/\u2028', 'invisible'],
  ['https://exam\u00adple.com/', 'invisible'],
  ['https://', 'not a valid URL'],
  ['https://exa mple.com', 'whitespace'],
  ['https://example.com:99999/', 'not a valid URL'],
  ['https://[::1/', 'not a valid URL'],
  ['https://ex<ample.com/', 'not a valid URL'],
  [`https://example.com/${'a'.repeat(2100)}`, 'at most 2048 characters'],
];

describe('normalizeRedirectUri: accepted', () => {
  it.each(accepted)('%s', (input, uri, kind) => {
    expect(normalizeRedirectUri(input)).toEqual({ uri, kind });
  });
});

describe('normalizeRedirectUri: refused', () => {
  it.each(refused)('%j', (input, rule) => {
    let caught: unknown;
    try {
      normalizeRedirectUri(input, 3);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('redirect_urls[3]');
    expect((caught as ValidationError).message).toContain(rule);
  });
});

describe('parseRedirectUrls', () => {
  it('normalizes every entry', () => {
    expect(parseRedirectUrls(['HTTPS://A.example/x', 'http://localhost:9/cb'])).toEqual([
      'https://a.example/x',
      'http://localhost:9/cb',
    ]);
  });
  it('accepts 20 and refuses 21 entries', () => {
    const urls = Array.from({ length: 21 }, (_, i) => `https://example.com/cb${i}`);
    expect(parseRedirectUrls(urls.slice(0, 20))).toHaveLength(20);
    expect(() => parseRedirectUrls(urls)).toThrow('redirect_urls: at most 20 entries (got 21)');
  });
  it('refuses duplicates after normalization', () => {
    expect(() => parseRedirectUrls(['https://example.com/cb', 'HTTPS://EXAMPLE.COM:443/cb'])).toThrow(
      'redirect_urls[1]: duplicate of an earlier entry',
    );
  });
  it.each([['a string'], [42], [{ 0: 'https://x.example/' }], [null]])('refuses non-array %j', (value) => {
    expect(() => parseRedirectUrls(value)).toThrow('redirect_urls: must be an array of strings');
  });
  it('refuses non-string entries naming the index', () => {
    expect(() => parseRedirectUrls(['https://ok.example/', 7])).toThrow('redirect_urls[1]: must be a string');
  });
});

/** [registered, presented, expected match or undefined] */
const matches: Array<[string[], string, string | undefined]> = [
  [['https://example.com/cb'], 'https://example.com/cb', 'https://example.com/cb'],
  [['https://example.com/cb'], 'HTTPS://EXAMPLE.COM:443/cb', 'https://example.com/cb'],
  [['https://example.com/cb'], 'https://example.com/cb/', undefined],
  [['https://example.com/cb'], 'https://example.com/CB', undefined],
  [['https://example.com/cb'], 'https://example.com/cb?x=1', undefined],
  [['https://example.com/cb'], 'https://example.com:8443/cb', undefined],
  [['https://example.com/cb'], 'https://example.com/cb#x', undefined],
  [['https://example.com/cb'], 'https://exаmple.com/cb', undefined],
  [['https://example.com/cb'], 'https://example.com.evil.example/cb', undefined],
  [['https://bücher.example/cb'], 'https://xn--bcher-kva.example/cb', 'https://xn--bcher-kva.example/cb'],
  [['https://xn--bcher-kva.example/cb'], 'https://BÜCHER.example/cb', 'https://xn--bcher-kva.example/cb'],
  [['http://localhost/cb'], 'http://localhost:53122/cb', 'http://localhost:53122/cb'],
  [['http://localhost:3000/cb'], 'http://localhost:4000/cb', 'http://localhost:4000/cb'],
  [['http://localhost/cb'], 'http://localhost:8080/cb', 'http://localhost:8080/cb'],
  [['http://localhost/cb'], 'http://127.0.0.1:8080/cb', undefined],
  [['http://localhost/cb'], 'http://localhost:8080/other', undefined],
  [['http://localhost/cb'], 'https://localhost/cb', undefined],
  [['https://example.com/a%23b'], 'https://example.com/a%23b', 'https://example.com/a%23b'],
  [['com.example.app:/callback'], 'COM.EXAMPLE.APP:/callback', 'com.example.app:/callback'],
  [['com.example.app:/callback'], 'com.example.app://callback', undefined],
  [['https://a.example/1', 'https://b.example/2'], 'https://b.example/2', 'https://b.example/2'],
  [['not a url', 'https://b.example/2'], 'https://b.example/2', 'https://b.example/2'],
  [[], 'https://example.com/cb', undefined],
  [['https://example.com/cb'], '', undefined],
];

describe('matchRedirectUri', () => {
  it.each(matches)('%j with %s', (registered, presented, expected) => {
    expect(matchRedirectUri(registered, presented)).toBe(expected);
  });
});

describe('redirect construction (RFC 6749 4.1.2 and 4.1.2.1)', () => {
  it('adds error, error_description and state, keeping the query', () => {
    const url = new URL(
      errorRedirect('https://example.com/cb?keep=1', {
        error: 'access_denied',
        errorDescription: 'The user denied the request & left',
        state: 'a b/c=d',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://example.com/cb');
    expect([...url.searchParams]).toEqual([
      ['keep', '1'],
      ['error', 'access_denied'],
      ['error_description', 'The user denied the request & left'],
      ['state', 'a b/c=d'],
    ]);
  });
  it('leaves out what is not given', () => {
    expect(errorRedirect('http://localhost:5000/cb', { error: 'invalid_scope' })).toBe(
      'http://localhost:5000/cb?error=invalid_scope',
    );
  });
  it('works for native schemes', () => {
    expect(errorRedirect('com.example.app:/cb', { error: 'server_error', state: 'xyz' })).toBe(
      'com.example.app:/cb?error=server_error&state=xyz',
    );
  });
  it('builds the code redirect', () => {
    expect(codeRedirect('https://example.com/cb', 'c0de', 's1')).toBe(
      'https://example.com/cb?code=c0de&state=s1',
    );
    expect(codeRedirect('https://example.com/cb?x=1', 'c0de')).toBe('https://example.com/cb?x=1&code=c0de');
  });
});
