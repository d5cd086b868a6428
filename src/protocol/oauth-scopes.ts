/**
 * OAuth scope vocabulary of the emulated service: which scopes exist, which an API-created client
 * may list in allowed_scopes, which a token request may be granted, and which scope each API
 * requires. Pure; see docs/oauth.md for the decisions where the spec is silent.
 */
import { ValidationError } from '../lib/errors.js';

/** Scope families (a bare family name and any `family.sub` scope belong to it). */
export const SCOPE_FAMILIES = ['printing', 'account', 'reporting', 'cloud', 'webhooks'] as const;

/** Scope names that are not families. */
export const SCOPE_NAMES = ['openid', 'profile', 'email'] as const;

/** Every scope a client with an empty allowed_scopes list may request. */
export const DEFAULT_GRANTABLE_SCOPES: readonly string[] = [
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

/** The scopes that need a signed-in user (OpenID identity scopes). */
const USER_ONLY_SCOPES = new Set<string>(SCOPE_NAMES);

/** Longest allowed_scopes input accepted, in characters (after NFKC normalization). */
export const MAX_SCOPE_INPUT_LENGTH = 2048;

/** The generic message for refused internal scopes; never echoes the value. */
export const SCOPE_NOT_PERMITTED_MESSAGE = 'One or more requested scopes are not permitted via the API.';

/** Grant types the token endpoint knows. */
export type GrantType =
  | 'authorization_code'
  | 'pairing_code'
  | 'password'
  | 'refresh_token'
  | 'client_credentials';

/** One scope token: a lower-case name with optional dotted segments, letters, digits, '_' and '-'. */
const SCOPE_SYNTAX = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

/**
 * Splits a space-separated scope string into scopes after NFKC normalization. Any run of ASCII
 * whitespace separates; duplicates are dropped, order kept. Syntax is not checked here.
 */
export function splitScopes(input: string): string[] {
  const parts = input.normalize('NFKC').split(/[ \t\r\n\f]+/);
  return [...new Set(parts.filter((p) => p.length > 0))];
}

/** Whether a scope belongs to a known family or is a known name. */
export function isKnownScope(scope: string): boolean {
  if (!SCOPE_SYNTAX.test(scope)) return false;
  if ((SCOPE_NAMES as readonly string[]).includes(scope)) return true;
  const family = scope.split('.')[0] ?? '';
  return (SCOPE_FAMILIES as readonly string[]).includes(family);
}

/** Whether a scope is internal (`account.` prefix) and refused to clients created through the API. */
export function isInternalScope(scope: string): boolean {
  return scope.toLowerCase().startsWith('account.');
}

/**
 * Validates the allowed_scopes input of client creation or update (a space-separated string) and
 * returns the array form. Throws ValidationError('allowed_scopes', ...) naming the rule; internal
 * scopes give the generic message without the value.
 */
export function parseAllowedScopes(input: unknown): string[] {
  if (input === undefined || input === null) return [];
  if (typeof input !== 'string') {
    throw new ValidationError('allowed_scopes', 'must be a space-separated string');
  }
  const normalized = input.normalize('NFKC');
  if (normalized.length > MAX_SCOPE_INPUT_LENGTH) {
    throw new ValidationError(
      'allowed_scopes',
      `at most ${MAX_SCOPE_INPUT_LENGTH} characters`,
      `allowed_scopes: at most ${MAX_SCOPE_INPUT_LENGTH} characters (got ${normalized.length})`,
    );
  }
  const scopes = splitScopes(normalized);
  if (scopes.some(isInternalScope)) {
    throw new ValidationError('allowed_scopes', 'not permitted via the API', SCOPE_NOT_PERMITTED_MESSAGE);
  }
  const unknown = scopes.find((s) => !isKnownScope(s));
  if (unknown !== undefined) {
    throw new ValidationError(
      'allowed_scopes',
      'unknown scope',
      `allowed_scopes: unknown scope ${JSON.stringify(unknown)}; allowed are the families ` +
        `${SCOPE_FAMILIES.join(', ')} (bare or with a dotted suffix) and ${SCOPE_NAMES.join(', ')}`,
    );
  }
  return scopes;
}

/** Outcome of a token request's scope check: granted scopes, or an RFC 6749 invalid_scope error. */
export type ScopeGrant =
  | { ok: true; scopes: string[] }
  | { ok: false; error: 'invalid_scope'; description: string };

/** Extra inputs of grantableScopes. */
export interface GrantScopeOptions {
  /** For refresh_token: the scopes of the original grant; the request may not widen them. */
  previouslyGranted?: readonly string[];
}

/**
 * Decides the scopes of a token request. `requested` is the form's space-separated scope (empty
 * or missing: the client's allowed scopes, or the previous grant on refresh); `clientAllowed`
 * empty means DEFAULT_GRANTABLE_SCOPES. Every requested scope must be covered by what the client
 * may have, otherwise invalid_scope names it. Identity scopes are refused to client_credentials.
 */
export function grantableScopes(
  requested: string | undefined,
  clientAllowed: readonly string[],
  grantType: GrantType,
  options: GrantScopeOptions = {},
): ScopeGrant {
  const ceiling = scopeCeiling(clientAllowed, grantType, options);
  const asked = splitScopes(requested ?? '');
  if (asked.length === 0) {
    return ceiling.length > 0
      ? { ok: true, scopes: [...ceiling] }
      : { ok: false, error: 'invalid_scope', description: 'scope: no scope can be granted to this client' };
  }
  for (const scope of asked) {
    const refusal = refusalReason(scope, ceiling, grantType);
    if (refusal) return { ok: false, error: 'invalid_scope', description: `scope: ${refusal}` };
  }
  return { ok: true, scopes: asked };
}

function scopeCeiling(
  clientAllowed: readonly string[],
  grantType: GrantType,
  options: GrantScopeOptions,
): readonly string[] {
  const base = clientAllowed.length > 0 ? clientAllowed : DEFAULT_GRANTABLE_SCOPES;
  const previous = grantType === 'refresh_token' ? options.previouslyGranted : undefined;
  const limited = previous ? previous.filter((s) => scopeSatisfies(base, s)) : base;
  return grantType === 'client_credentials' ? limited.filter((s) => !USER_ONLY_SCOPES.has(s)) : limited;
}

function refusalReason(scope: string, ceiling: readonly string[], grantType: GrantType): string | undefined {
  if (isInternalScope(scope)) return 'one or more requested scopes are not permitted';
  if (!isKnownScope(scope)) return 'unknown scope';
  if (grantType === 'client_credentials' && USER_ONLY_SCOPES.has(scope)) {
    return `${scope} needs a signed-in user and cannot be granted to client_credentials`;
  }
  if (!scopeSatisfies(ceiling, scope)) {
    return grantType === 'refresh_token'
      ? `${scope} exceeds the scope of the original grant`
      : `${scope} is not allowed for this client`;
  }
  return undefined;
}

/**
 * Whether a set of granted scopes covers a required scope: an exact match, or a granted parent
 * (`printing` covers `printing.connectors`, `webhooks` covers `webhooks.readonly`).
 */
export function scopeSatisfies(granted: readonly string[], required: string): boolean {
  return granted.some((g) => g === required || required.startsWith(`${g}.`));
}

/** The APIs of the emulator, by the scope they require. */
export type ApiArea = 'sfapi' | 'connector' | 'webhooks-read' | 'webhooks-write' | 'account' | 'reporting';

/** The scope each API area requires (checked with scopeSatisfies). */
export const REQUIRED_SCOPE: Readonly<Record<ApiArea, string>> = {
  sfapi: 'printing',
  connector: 'printing.connectors',
  'webhooks-read': 'webhooks.readonly',
  'webhooks-write': 'webhooks',
  account: 'account',
  reporting: 'reporting',
};

/** The scope a webhook request needs: GET (and HEAD) read, every other method writes. */
export function webhookScopeFor(method: string): string {
  const upper = method.toUpperCase();
  return upper === 'GET' || upper === 'HEAD'
    ? REQUIRED_SCOPE['webhooks-read']
    : REQUIRED_SCOPE['webhooks-write'];
}
