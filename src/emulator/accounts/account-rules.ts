/**
 * Validation of account and partner request bodies: e-mail addresses, roles, date-times, names
 * and the set of fields a body may carry. Pure; every error names the field and the rule.
 */
import { ValidationError } from '../../lib/errors.js';
import type { UserRole } from './user-repo.js';

/** A JSON object body, or a ValidationError naming `field` (default: the body). */
export function objectBody(body: unknown, field = 'body'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError(field, 'must be a JSON object');
  return body as Record<string, unknown>;
}

/** Refuses any field of `body` outside `allowed`, naming the first such field. */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined)
    throw new ValidationError(extra, `is not changeable; only ${allowed.join(', ')} may be sent`);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A trimmed e-mail address (at most 254 characters). */
export function emailField(value: unknown, field = 'email'): string {
  if (typeof value !== 'string' || !EMAIL.test(value.trim()) || value.trim().length > 254)
    throw new ValidationError(field, 'must be an e-mail address');
  return value.trim();
}

/** A non-empty string of at most `max` characters (trimmed). */
export function textField(value: unknown, field: string, max = 255, allowEmpty = false): string {
  if (typeof value !== 'string') throw new ValidationError(field, 'must be a string');
  const text = value.trim();
  if (!allowEmpty && text === '') throw new ValidationError(field, 'must not be empty');
  if (text.length > max) throw new ValidationError(field, `must be at most ${max} characters`);
  return text;
}

/** An ISO 8601 date-time with a time zone, as epoch milliseconds. */
export function dateTimeField(value: unknown, field: string): number {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const ms = typeof value === 'string' && iso.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(field, 'must be an ISO 8601 date-time with a time zone');
  return ms;
}

/** A date-time that lies after `now`. */
export function futureDateTimeField(value: unknown, field: string, now: number): number {
  const ms = dateTimeField(value, field);
  if (ms <= now) throw new ValidationError(field, 'must lie in the future');
  return ms;
}

const ROLE_VALUES: readonly UserRole[] = ['admin', 'user'];

/**
 * Roles as the account and partner APIs take them: an array of admin/user (non-empty, no
 * repeats), or one string: "admin" (an admin is a user too: [admin, user]) or "user".
 */
export function rolesField(value: unknown, field = 'roles'): UserRole[] {
  if (value === 'admin') return ['admin', 'user'];
  if (value === 'user') return ['user'];
  const valid =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((r) => ROLE_VALUES.includes(r as UserRole)) &&
    new Set(value).size === value.length;
  if (!valid)
    throw new ValidationError(field, 'must be admin or user, or a non-empty array of them without repeats');
  return [...(value as UserRole[])].sort((a, b) => ROLE_VALUES.indexOf(a) - ROLE_VALUES.indexOf(b));
}

/** A value out of a fixed list. */
export function oneOfField<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new ValidationError(field, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** A UUID string. */
export function uuidField(value: unknown, field: string): string {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  if (typeof value !== 'string' || !uuid.test(value)) throw new ValidationError(field, 'must be a UUID');
  return value.toLowerCase();
}
