/**
 * Redirect URI rules of OAuth clients: validation and normalization at registration, matching at
 * /oauth/authorize and the token endpoint (exact match after normalization, with the spec's
 * `http://localhost` exception: any port), and RFC 6749 redirect construction. Pure; decisions
 * in docs/oauth.md.
 */
import { ValidationError } from '../lib/errors.js';

/** Most redirect URLs one client may register. */
export const MAX_REDIRECT_URLS = 20;

/** Longest redirect URL accepted, in characters. */
export const MAX_REDIRECT_URL_LENGTH = 2048;

/** The one host allowed with http: the spec writes the exception as `http://localhost` (any port and path). */
const LOOPBACK_HOST = 'localhost';

/** A reverse-DNS private-use scheme (RFC 8252 section 7.1): at least two dot-separated labels. */
const NATIVE_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/;

/** The kinds of redirect URI a client may register. */
export type RedirectKind = 'https' | 'loopback' | 'native';

/** A validated redirect URI: its normalized string form and its kind. */
export interface NormalizedRedirect {
  uri: string;
  kind: RedirectKind;
}

function fail(rule: string, index?: number): never {
  const field = index === undefined ? 'redirect_uri' : `redirect_urls[${index}]`;
  throw new ValidationError(field, rule);
}

function checkCharacters(text: string, index?: number): void {
  if (text.length === 0) fail('must not be empty', index);
  if (text.length > MAX_REDIRECT_URL_LENGTH) fail(`at most ${MAX_REDIRECT_URL_LENGTH} characters`, index);
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(text)) {
    fail('no whitespace, control characters or backslashes', index);
  }
  if (/[\p{Cf}\p{Z}]/u.test(text)) fail('no invisible or space characters', index);
  // A percent-encoded %23 or %2A is an ordinary escaped character of a path or query, not a
  // fragment or a wildcard; only the characters themselves are.
  if (text.includes('#')) fail('no fragments', index);
  if (text.includes('*')) fail('no wildcards', index);
}

function schemeOf(text: string, index?: number): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text);
  if (!match?.[1]) fail('must be an absolute URL with a scheme', index);
  return match[1].toLowerCase();
}

function parse(text: string, index?: number): URL {
  try {
    return new URL(text);
  } catch {
    return fail('not a valid URL (host or syntax)', index);
  }
}

function kindOf(scheme: string, url: URL, index?: number): RedirectKind {
  if (scheme === 'https') {
    // Stryker disable next-line StringLiteral: the URL parser refuses an https URL without a host before this check
    if (url.hostname === '') fail('https URL needs a host', index);
    return 'https';
  }
  if (scheme === 'http') {
    if (url.hostname !== LOOPBACK_HOST) {
      fail('http is allowed only as http://localhost (any port and path); use https', index);
    }
    return 'loopback';
  }
  if (NATIVE_SCHEME.test(scheme)) return 'native';
  return fail('scheme must be https, http on a loopback host, or a reverse-DNS native scheme', index);
}

/**
 * Validates one redirect URI and returns its normalized form: NFKC, lower-case scheme and host,
 * IDN hosts in punycode, default ports dropped, WHATWG serialization. `index` names the entry
 * of redirect_urls in errors (without it the field is redirect_uri). Throws ValidationError.
 */
export function normalizeRedirectUri(input: string, index?: number): NormalizedRedirect {
  const text = input.normalize('NFKC');
  checkCharacters(text, index);
  const scheme = schemeOf(text, index);
  const url = parse(text, index);
  if (url.username !== '' || url.password !== '' || /^[^:]+:\/\/[^/?]*@/.test(text)) {
    fail('no userinfo (user:password@)', index);
  }
  const kind = kindOf(scheme, url, index);
  return { uri: url.href, kind };
}

/**
 * Validates the redirect_urls field of client creation or update and returns the normalized
 * list. Throws ValidationError naming `redirect_urls` or the failing entry.
 */
export function parseRedirectUrls(input: unknown): string[] {
  if (!Array.isArray(input)) throw new ValidationError('redirect_urls', 'must be an array of strings');
  if (input.length > MAX_REDIRECT_URLS) {
    throw new ValidationError('redirect_urls', `at most ${MAX_REDIRECT_URLS} entries (got ${input.length})`);
  }
  const seen = new Set<string>();
  return input.map((entry, index) => {
    if (typeof entry !== 'string') throw new ValidationError(`redirect_urls[${index}]`, 'must be a string');
    const { uri } = normalizeRedirectUri(entry, index);
    if (seen.has(uri)) throw new ValidationError(`redirect_urls[${index}]`, 'duplicate of an earlier entry');
    seen.add(uri);
    return uri;
  });
}

function withoutPort(uri: string): string {
  const url = new URL(uri);
  url.port = '';
  return url.href;
}

/**
 * Finds the registered redirect URI a request's redirect_uri matches: exact string match after
 * normalization; for http://localhost URIs any port matches (the spec's exception), host and path
 * still exactly. Returns the presented URI normalized (the one to redirect to), or undefined.
 */
export function matchRedirectUri(registered: readonly string[], presented: string): string | undefined {
  let candidate: NormalizedRedirect;
  try {
    candidate = normalizeRedirectUri(presented);
  } catch {
    return undefined;
  }
  for (const entry of registered) {
    let stored: NormalizedRedirect;
    try {
      stored = normalizeRedirectUri(entry);
    } catch {
      continue;
    }
    if (stored.uri === candidate.uri) return candidate.uri;
    if (stored.kind === 'loopback' && candidate.kind === 'loopback') {
      if (withoutPort(stored.uri) === withoutPort(candidate.uri)) return candidate.uri;
    }
  }
  return undefined;
}

/** RFC 6749 section 4.1.2.1 error parameters. */
export interface RedirectError {
  error: string;
  errorDescription?: string;
  state?: string;
}

/**
 * Builds the redirect URL that reports an authorization error to the client: the matched
 * redirect URI with error, error_description and state added to its query (existing query kept).
 */
export function errorRedirect(redirectUri: string, params: RedirectError): string {
  const url = new URL(redirectUri);
  url.searchParams.append('error', params.error);
  if (params.errorDescription !== undefined)
    url.searchParams.append('error_description', params.errorDescription);
  if (params.state !== undefined) url.searchParams.append('state', params.state);
  return url.href;
}

/** Builds the success redirect of the authorization code flow: code and state added to the query. */
export function codeRedirect(redirectUri: string, code: string, state?: string): string {
  const url = new URL(redirectUri);
  url.searchParams.append('code', code);
  if (state !== undefined) url.searchParams.append('state', state);
  return url.href;
}
