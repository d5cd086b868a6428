/**
 * Pure validation of a connector registration (protocol/connector-channel.ts
 * ConnectorRegistration) and the rule that makes readable names unique. Every broken rule is
 * reported at once. No I/O.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { ConnectorRegistration } from '../../protocol/connector-channel.js';

const TYPES = ['TPHub', 'Printserver'];
const OS_TYPES = ['Linux', 'Windows', 'Windows CE'];
const FORMATS = ['RAW', 'PDF', 'EMF', 'XPS'];
const MAX = 255;

type Check = (value: unknown) => string | undefined;

const text =
  (required: boolean, max = MAX): Check =>
  (v) => {
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string') return 'must be a string';
    if (required && v.trim() === '') return 'must not be empty';
    return v.length > max ? `at most ${max} characters` : undefined;
  };
const nullableText: Check = (v) => (v === null || v === undefined ? undefined : text(false, 1024)(v));
const oneOf =
  (values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `must be one of ${values.join(', ')}`;
const formats: Check = (v) => {
  if (typeof v !== 'string') return 'must be a comma-separated string';
  const bad = v
    .split(',')
    .map((f) => f.trim())
    .filter((f) => !FORMATS.includes(f.toUpperCase()));
  return bad.length > 0 ? `each must be one of ${FORMATS.join(', ')} (got ${bad.join(', ')})` : undefined;
};

const CHECKS: Record<keyof ConnectorRegistration, Check> = {
  serial_string: text(true),
  type: oneOf(TYPES),
  readable_name: text(true),
  description: text(false, 1024),
  hostname: text(true),
  internal_ip: nullableText,
  external_ip: nullableText,
  os_type: oneOf(OS_TYPES),
  sw_version: text(true, 64),
  location: nullableText,
  management_url: nullableText,
  supported_formats: formats,
};

/** Validates a registration body; throws ValidationErrors naming every bad field. */
export function parseRegistration(body: unknown): ConnectorRegistration {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationErrors([new ValidationError('body', 'must be a JSON object')]);
  }
  const record = body as Record<string, unknown>;
  const errors: ValidationError[] = [];
  for (const [field, check] of Object.entries(CHECKS)) {
    const problem = check(
      field === 'internal_ip' || field === 'external_ip' ? (record[field] ?? null) : record[field],
    );
    if (problem) errors.push(new ValidationError(field, problem));
  }
  for (const field of Object.keys(record)) {
    if (!(field in CHECKS)) errors.push(new ValidationError(field, 'unknown field'));
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  const reg = {
    ...record,
    internal_ip: record['internal_ip'] ?? null,
    external_ip: record['external_ip'] ?? null,
  };
  return reg as unknown as ConnectorRegistration;
}

/** `name`, or `name (2)`, `name (3)`, ... : the first one `taken` says is free. */
export function uniqueName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = name.slice(0, MAX - suffix.length) + suffix;
    if (!taken(candidate)) return candidate;
  }
}
