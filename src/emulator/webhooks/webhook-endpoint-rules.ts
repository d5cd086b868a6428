/**
 * Pure rules of webhook endpoints and settings: checking a create body, applying a JSON Merge
 * Patch (RFC 7396) to an endpoint or to the data protection settings, the test body, and the
 * order parameter of the failed event list. Every error names the field and the rule. No I/O.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { EventOrderKey } from './webhook-delivery-repo.js';
import { WEBHOOK_TOPICS, type WebhookSettings, type WebhookTopic } from './webhook-endpoint-repo.js';

/** An endpoint's fields as a caller sets them; basicPassword undefined: unchanged. */
export interface EndpointDraft {
  name: string;
  url: string;
  topics: WebhookTopic[];
  disabled: boolean;
  authenticationScheme: 'basic' | null;
  basicUsername: string;
  /** Plain password, null for none, undefined to keep the stored one. */
  basicPassword?: string | null;
}

/** The body of PUT /webhooks/endpoints/test, checked. */
export interface EndpointTest {
  url: string;
  topic: WebhookTopic;
  authenticationScheme: 'basic' | null;
  basicUsername: string;
  basicPassword: string;
}

const ENDPOINT_FIELDS = [
  'name',
  'url',
  'topics',
  'disabled',
  'authentication_scheme',
  'basic_username',
  'basic_password',
] as const;
const SETTINGS_FIELDS: readonly (keyof WebhookSettings)[] = [
  'file_name_obfuscated',
  'user_email_disabled',
  'user_name_disabled',
];
const ORDER_KEYS: readonly EventOrderKey[] = ['created', '-created', 'event_id', '-event_id'];
const MAX_TEXT = 255;

type Body = Record<string, unknown>;

/** Collects errors; `done()` throws them all at once. */
class Checks {
  readonly errors: ValidationError[] = [];
  fail(field: string, rule: string): void {
    this.errors.push(new ValidationError(field, rule));
  }
  done(): void {
    if (this.errors.length > 0) throw new ValidationErrors(this.errors);
  }
}

function asObject(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError('body', 'must be a JSON object');
  return body as Body;
}

/** True for an absolute https:// URL with a host. */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && value.length <= 2048;
  } catch {
    return false;
  }
}

function checkText(c: Checks, field: string, v: unknown, min: number): string {
  if (typeof v !== 'string' || v.length < min || v.length > MAX_TEXT) {
    c.fail(field, `must be a string of ${min} to ${MAX_TEXT} characters`);
    return '';
  }
  return v;
}

function checkUrl(c: Checks, v: unknown): string {
  if (typeof v !== 'string' || !isHttpsUrl(v)) {
    c.fail('url', 'must be an absolute URL beginning with https:// (at most 2048 characters)');
    return '';
  }
  return v;
}

function checkTopics(c: Checks, v: unknown): WebhookTopic[] {
  const ok =
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((t) => WEBHOOK_TOPICS.includes(t as WebhookTopic)) &&
    new Set(v).size === v.length;
  if (!ok) c.fail('topics', `must be a non-empty array of distinct topics from ${WEBHOOK_TOPICS.join(', ')}`);
  return ok ? (v as WebhookTopic[]) : [];
}

function checkScheme(c: Checks, v: unknown): 'basic' | null {
  if (v !== null && v !== 'basic') c.fail('authentication_scheme', 'must be basic or null');
  return v === 'basic' ? 'basic' : null;
}

function checkUsername(c: Checks, v: unknown): string {
  if (typeof v !== 'string' || v.length > MAX_TEXT || v.includes(':'))
    c.fail('basic_username', `must be a string of at most ${MAX_TEXT} characters without a colon (RFC 7617)`);
  return typeof v === 'string' ? v : '';
}

function checkPassword(c: Checks, v: unknown): string {
  if (typeof v !== 'string' || v.length > MAX_TEXT)
    c.fail('basic_password', `must be a string of at most ${MAX_TEXT} characters`);
  return typeof v === 'string' ? v : '';
}

function rejectUnknown(c: Checks, body: Body, known: readonly string[]): void {
  for (const key of Object.keys(body))
    if (!known.includes(key)) c.fail(key, 'is not a field that can be set');
}

/** Checks a POST /webhooks/endpoints body; topics default to every topic. */
export function parseEndpointCreate(input: unknown): EndpointDraft {
  const body = asObject(input);
  const c = new Checks();
  rejectUnknown(c, body, ENDPOINT_FIELDS);
  const draft: EndpointDraft = {
    name: checkText(c, 'name', body['name'], 1),
    url: checkUrl(c, body['url']),
    topics: body['topics'] === undefined ? [...WEBHOOK_TOPICS] : checkTopics(c, body['topics']),
    disabled: body['disabled'] === undefined ? false : checkBoolean(c, 'disabled', body['disabled']),
    authenticationScheme:
      body['authentication_scheme'] === undefined ? null : checkScheme(c, body['authentication_scheme']),
    basicUsername: body['basic_username'] === undefined ? '' : checkUsername(c, body['basic_username']),
    basicPassword: body['basic_password'] === undefined ? null : checkPassword(c, body['basic_password']),
  };
  c.done();
  return withoutCredentialsUnlessBasic(draft);
}

/**
 * Applies a merge patch to an endpoint. null removes: allowed for authentication_scheme (which
 * also drops the credentials), basic_username and basic_password; name, url, topics and
 * disabled cannot be removed.
 */
export function applyEndpointPatch(current: EndpointDraft, input: unknown): EndpointDraft {
  const patch = asObject(input);
  const c = new Checks();
  rejectUnknown(c, patch, ENDPOINT_FIELDS);
  const next: EndpointDraft = { ...current, basicPassword: undefined };
  const has = (k: string) => k in patch;
  for (const k of ['name', 'url', 'topics', 'disabled'] as const)
    if (has(k) && patch[k] === null) c.fail(k, 'cannot be removed (null)');
  if (has('name') && patch['name'] !== null) next.name = checkText(c, 'name', patch['name'], 1);
  if (has('url') && patch['url'] !== null) next.url = checkUrl(c, patch['url']);
  if (has('topics') && patch['topics'] !== null) next.topics = checkTopics(c, patch['topics']);
  if (has('disabled') && patch['disabled'] !== null)
    next.disabled = checkBoolean(c, 'disabled', patch['disabled']);
  if (has('authentication_scheme'))
    next.authenticationScheme = checkScheme(c, patch['authentication_scheme']);
  if (has('basic_username'))
    next.basicUsername = patch['basic_username'] === null ? '' : checkUsername(c, patch['basic_username']);
  if (has('basic_password'))
    next.basicPassword = patch['basic_password'] === null ? null : checkPassword(c, patch['basic_password']);
  c.done();
  return withoutCredentialsUnlessBasic(next);
}

/** Without the basic scheme no credentials are kept. */
function withoutCredentialsUnlessBasic(d: EndpointDraft): EndpointDraft {
  return d.authenticationScheme === 'basic' ? d : { ...d, basicUsername: '', basicPassword: null };
}

function checkBoolean(c: Checks, field: string, v: unknown): boolean {
  if (typeof v !== 'boolean') c.fail(field, 'must be true or false');
  return v === true;
}

/** Checks a PUT /webhooks/endpoints/test body (url and exactly one topic required). */
export function parseEndpointTest(input: unknown): EndpointTest {
  const body = asObject(input);
  const c = new Checks();
  rejectUnknown(c, body, ['url', 'topic', 'authentication_scheme', 'basic_username', 'basic_password']);
  const topic = body['topic'];
  if (!WEBHOOK_TOPICS.includes(topic as WebhookTopic))
    c.fail('topic', `must be one of ${WEBHOOK_TOPICS.join(', ')}`);
  const test: EndpointTest = {
    url: checkUrl(c, body['url']),
    topic: topic as WebhookTopic,
    authenticationScheme:
      body['authentication_scheme'] === undefined ? null : checkScheme(c, body['authentication_scheme']),
    basicUsername: body['basic_username'] === undefined ? '' : checkUsername(c, body['basic_username']),
    basicPassword: body['basic_password'] === undefined ? '' : checkPassword(c, body['basic_password']),
  };
  c.done();
  return test;
}

/** Applies a merge patch to the data protection settings; null resets a setting to false. */
export function applySettingsPatch(current: WebhookSettings, input: unknown): WebhookSettings {
  const patch = asObject(input);
  const c = new Checks();
  rejectUnknown(c, patch, SETTINGS_FIELDS);
  const next = { ...current };
  for (const key of SETTINGS_FIELDS) {
    if (!(key in patch)) continue;
    next[key] = patch[key] === null ? false : checkBoolean(c, key, patch[key]);
  }
  c.done();
  return next;
}

/** Parses `order` (comma-separated created, -created, event_id, -event_id; default created). */
export function parseEventOrder(raw: unknown): EventOrderKey[] {
  if (raw === undefined || raw === '') return ['created'];
  const keys = typeof raw === 'string' ? raw.split(',').map((k) => k.trim()) : [];
  const fields = keys.map((k) => k.replace(/^-/, ''));
  const ok =
    keys.length > 0 &&
    keys.every((k) => ORDER_KEYS.includes(k as EventOrderKey)) &&
    new Set(fields).size === fields.length;
  if (!ok)
    throw new ValidationError(
      'order',
      `must be a comma-separated list of ${ORDER_KEYS.join(', ')}, each field once`,
    );
  return keys as EventOrderKey[];
}
