/**
 * Validation of OAuth client creation (POST /v1/oauth-clients/public/ and .../confidential/) and
 * update (PATCH /v1/oauth-clients/<id>/) bodies, per the spec's client-management rules. Pure:
 * takes the parsed JSON body, returns normalized values or throws ValidationError(s) naming the
 * field and the rule. Decisions where the spec is silent are in docs/oauth.md.
 */
import { ValidationError, ValidationErrors } from '../lib/errors.js';
import { parseAllowedScopes } from './oauth-scopes.js';
import { parseRedirectUrls } from './oauth-redirect-uri.js';

/** Public (PKCE, no secret) or confidential (with a secret). */
export type ClientType = 'public' | 'confidential';

/** Who may sign in through the client. */
export type TenantMode = 'single' | 'multi';

/** Grant types an API-created client can be registered with. */
export type ClientGrantType = 'authorization_code' | 'pairing_code';

/** Longest client name, in characters after NFKC. */
export const MAX_NAME_LENGTH = 255;

/** Longest external_description, in characters after NFKC. */
export const MAX_DESCRIPTION_LENGTH = 1000;

/** The fields a PATCH may change. */
export const PATCHABLE_FIELDS = ['name', 'external_description', 'redirect_urls', 'allowed_scopes'] as const;

/** Fields fixed at creation; a PATCH naming one is refused. */
export const IMMUTABLE_FIELDS = ['tenant_mode', 'client_type', 'grant_types'] as const;

/** A validated creation body. */
export interface NewClientSettings {
  clientType: ClientType;
  name: string;
  externalDescription: string;
  redirectUrls: string[];
  allowedScopes: string[];
  tenantMode: TenantMode;
  grantTypes: ClientGrantType[];
}

/** A validated PATCH body: only the fields sent. */
export interface ClientPatch {
  name?: string;
  externalDescription?: string;
  redirectUrls?: string[];
  allowedScopes?: string[];
}

/** What a PATCH needs to know about the client it changes. */
export interface ExistingClient {
  clientType: ClientType;
  grantTypes: readonly string[];
}

type Body = Record<string, unknown>;

function asBody(input: unknown): Body {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('body', 'must be a JSON object');
  }
  return input as Body;
}

/** Runs each check, collecting every ValidationError; throws them together at the end. */
function collect(checks: Array<() => void>): void {
  const errors: ValidationError[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (error instanceof ValidationError) errors.push(error);
      else throw error;
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new ValidationErrors(errors);
}

function text(value: unknown, field: string, max: number, required: boolean): string {
  if (value === undefined || value === null) {
    if (required) throw new ValidationError(field, 'is required');
    return '';
  }
  if (typeof value !== 'string') throw new ValidationError(field, 'must be a string');
  const normalized = value.normalize('NFKC').trim();
  if (required && normalized.length === 0) throw new ValidationError(field, 'must not be empty');
  if (normalized.length > max) throw new ValidationError(field, `at most ${max} characters`);
  const control =
    field === 'name'
      ? /[\u0000-\u001f\u007f-\u009f]/
      : /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
  if (control.test(normalized)) throw new ValidationError(field, 'no control characters');
  return normalized;
}

/** Validates a client name: required, NFKC, trimmed, 1..255 characters, no control characters. */
export function parseClientName(value: unknown): string {
  return text(value, 'name', MAX_NAME_LENGTH, true);
}

/** Validates external_description: optional (default ''), NFKC, at most 1000 characters. */
export function parseExternalDescription(value: unknown): string {
  return text(value, 'external_description', MAX_DESCRIPTION_LENGTH, false);
}

/** Validates tenant_mode: single (default when missing) or multi, after NFKC. */
export function parseTenantMode(value: unknown): TenantMode {
  if (value === undefined || value === null) return 'single';
  if (typeof value !== 'string') throw new ValidationError('tenant_mode', 'must be single or multi');
  const normalized = value.normalize('NFKC');
  if (normalized === 'single' || normalized === 'multi') return normalized;
  throw new ValidationError('tenant_mode', 'must be single or multi');
}

/** Validates a confidential client's grant_types: an array with exactly one supported entry. */
export function parseConfidentialGrantTypes(value: unknown): ClientGrantType[] {
  if (value === undefined || value === null) throw new ValidationError('grant_types', 'is required');
  if (!Array.isArray(value)) throw new ValidationError('grant_types', 'must be an array of strings');
  if (value.length !== 1) {
    throw new ValidationError(
      'grant_types',
      'exactly one of authorization_code or pairing_code (register two clients for both)',
    );
  }
  const entry = typeof value[0] === 'string' ? value[0].normalize('NFKC') : undefined;
  if (entry === 'authorization_code' || entry === 'pairing_code') return [entry];
  throw new ValidationError('grant_types', 'exactly one of authorization_code or pairing_code');
}

function redirects(value: unknown, requireOne: boolean): string[] {
  if (value === undefined || value === null) {
    if (requireOne) throw new ValidationError('redirect_urls', 'is required');
    return [];
  }
  const urls = parseRedirectUrls(value);
  if (requireOne && urls.length === 0) throw new ValidationError('redirect_urls', 'needs at least one URL');
  return urls;
}

/**
 * Validates a creation body for the given client type. Unknown fields are ignored (client_type
 * in the body too: the path decides). Every broken rule is reported at once (ValidationErrors).
 */
export function validateNewClient(clientType: ClientType, input: unknown): NewClientSettings {
  const body = asBody(input);
  const out: Partial<NewClientSettings> = { clientType };
  collect([
    () => {
      out.name = parseClientName(body.name);
    },
    () => {
      out.externalDescription = parseExternalDescription(body.external_description);
    },
    () => {
      out.allowedScopes = parseAllowedScopes(body.allowed_scopes);
    },
    () => {
      out.tenantMode = parseTenantMode(body.tenant_mode);
    },
    () => {
      out.grantTypes = grantTypesFor(clientType, body.grant_types);
    },
    () => {
      const needsRedirect = clientType === 'public' || out.grantTypes?.[0] === 'authorization_code';
      out.redirectUrls = redirects(body.redirect_urls, needsRedirect);
    },
  ]);
  return out as NewClientSettings;
}

function grantTypesFor(clientType: ClientType, value: unknown): ClientGrantType[] {
  if (clientType === 'confidential') return parseConfidentialGrantTypes(value);
  if (value !== undefined) {
    throw new ValidationError('grant_types', 'not accepted for public clients (always authorization_code)');
  }
  return ['authorization_code'];
}

function checkPatchKeys(body: Body): void {
  for (const key of Object.keys(body)) {
    if ((IMMUTABLE_FIELDS as readonly string[]).includes(key)) {
      throw new ValidationError(key, 'fixed at creation; cannot be changed');
    }
    if (!(PATCHABLE_FIELDS as readonly string[]).includes(key)) {
      throw new ValidationError(key, `unknown field; PATCH accepts only ${PATCHABLE_FIELDS.join(', ')}`);
    }
  }
}

/**
 * Validates a PATCH body against the client it changes: only name, external_description,
 * redirect_urls and allowed_scopes; any other field (unknown or immutable) gives a
 * ValidationError naming it. An authorization_code client keeps at least one redirect URL.
 */
export function validateClientPatch(input: unknown, existing: ExistingClient): ClientPatch {
  const body = asBody(input);
  const patch: ClientPatch = {};
  collect(Object.keys(body).map((key) => () => checkPatchKeys({ [key]: body[key] })));
  const needsRedirect =
    existing.clientType === 'public' || existing.grantTypes.includes('authorization_code');
  collect([
    () => {
      if ('name' in body) patch.name = parseClientName(body.name);
    },
    () => {
      if ('external_description' in body) {
        patch.externalDescription = parseExternalDescription(body.external_description);
      }
    },
    () => {
      if ('redirect_urls' in body) patch.redirectUrls = redirects(body.redirect_urls ?? [], needsRedirect);
    },
    () => {
      if ('allowed_scopes' in body) patch.allowedScopes = parseAllowedScopes(body.allowed_scopes);
    },
  ]);
  return patch;
}
