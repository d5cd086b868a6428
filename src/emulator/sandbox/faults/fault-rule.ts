/**
 * Fault rules: what a rule does (its action), what it applies to (its scope: operation by
 * OpenAPI operationId, printer, user, client) and how long (`times`, `duration_s`). One parser
 * for every source (POST /_emulator/faults, the CLI, a `--faults` YAML file): it returns every
 * broken rule at once as a path and a rule in words, so the YAML loader can place each at its
 * line and column. Pure: no I/O.
 */
import { ValidationError, ValidationErrors } from '../../../lib/errors.js';

/** What a rule makes the emulator do. */
export type FaultAction =
  /** Answer the operation with this status, headers and body instead of running it. */
  | { kind: 'respond'; status: number; headers: Record<string, string>; body?: unknown }
  /** Wait this long before running the operation. */
  | { kind: 'latency'; ms: number }
  /** Send the answer's headers and half its body, then cut the connection. */
  | { kind: 'cut' }
  /** Send the answer's body in 16 KiB pieces with this pause before each. */
  | { kind: 'slow_chunks'; ms: number }
  /**
   * When a connector reports a job printed, record it failed with this code instead, or
   * printed with this many pages.
   */
  | { kind: 'end_job'; errorCode?: number; pagesPrinted?: number }
  /** While in force, the printer's new jobs wait (not offered to its connector), with this reason. */
  | { kind: 'printer_state'; state: 'offline' | 'jammed' }
  /** Close the connector's channel and answer its requests 503 while in force. */
  | { kind: 'drop_connector' }
  /** Record a webhook receiver's answer as this failing status (the receiver still got the POST). */
  | { kind: 'webhook_status'; status: number };

/** The kinds of action. */
export type FaultKind = FaultAction['kind'];

/** What a rule applies to; an absent field matches everything. */
export interface FaultScope {
  /** The OpenAPI operationId (see /openapi.json). */
  operation?: string;
  /** A printer id, matched against the request's path, query and top-level body values. */
  printer?: string;
  /** A user's id or e-mail, matched against the bearer token's user. */
  user?: string;
  /** An OAuth client_id, matched against the bearer token's client. */
  client?: string;
  /** A connector id, matched against the request's X-Host-Id (drop_connector only). */
  connector?: string;
  /** A webhook endpoint id (webhook_status only). */
  endpoint?: string;
}

/** A rule as given, before the switchboard numbers it. */
export interface FaultRuleDraft {
  scope: FaultScope;
  action: FaultAction;
  /** Applies this many times, then is removed; absent: until removed or expired. */
  times?: number;
  /** Applies for this many seconds of the emulator's clock from its creation. */
  durationS?: number;
}

/** One broken rule of an input, at a data path. */
export interface FaultIssue {
  path: (string | number)[];
  rule: string;
}

const SCOPE_KEYS = ['operation', 'printer', 'user', 'client', 'connector', 'endpoint'] as const;
const ACTION_KEYS = [
  'respond',
  'latency_ms',
  'cut',
  'slow_chunks_ms',
  'end_job',
  'printer_state',
  'drop_connector',
  'webhook_status',
] as const;
const KNOWN = new Set<string>([...SCOPE_KEYS, ...ACTION_KEYS, 'times', 'duration_s']);
const MAX_LATENCY_MS = 300_000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isWhole = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Checks one rule; returns its draft, or every issue (paths relative to the rule). */
export function checkFaultRule(input: unknown): { draft?: FaultRuleDraft; issues: FaultIssue[] } {
  if (!isObject(input)) return { issues: [{ path: [], rule: 'must be an object (a fault rule)' }] };
  const issues: FaultIssue[] = [];
  for (const key of Object.keys(input))
    if (!KNOWN.has(key)) issues.push({ path: [key], rule: `unknown key (known: ${[...KNOWN].join(', ')})` });
  const scope: FaultScope = {};
  for (const key of SCOPE_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '')
      issues.push({ path: [key], rule: 'must be a non-empty string' });
    else scope[key] = value.trim();
  }
  const times = input['times'];
  if (times !== undefined && !isWhole(times, 1, 1_000_000))
    issues.push({ path: ['times'], rule: 'must be a whole number from 1 to 1000000' });
  const duration = input['duration_s'];
  if (duration !== undefined && !isWhole(duration, 1, 366 * 24 * 3600))
    issues.push({ path: ['duration_s'], rule: 'must be a whole number of seconds from 1 to 31622400' });
  const given = ACTION_KEYS.filter((k) => input[k] !== undefined);
  if (given.length !== 1) {
    const rule = given.length === 0 ? 'is required: one action of' : 'only one action of';
    issues.push({ path: given.length === 0 ? [] : [given[1]!], rule: `${rule} ${ACTION_KEYS.join(', ')}` });
  }
  const action = given.length === 1 ? checkAction(given[0]!, input[given[0]!], issues) : undefined;
  const needsOperation =
    action?.kind === 'respond' || action?.kind === 'cut' || action?.kind === 'slow_chunks';
  if (needsOperation && scope.operation === undefined)
    issues.push({ path: ['operation'], rule: `is required with ${given[0]}` });
  if (action?.kind === 'end_job')
    for (const key of ['operation', 'client'] as const)
      if (scope[key] !== undefined)
        issues.push({
          path: [key],
          rule: 'does not apply to end_job (jobs are matched by printer and user)',
        });
  if (action?.kind === 'printer_state') {
    if (scope.printer === undefined)
      issues.push({ path: ['printer'], rule: 'is required with printer_state' });
    for (const key of ['operation', 'user', 'client', 'times'] as const)
      if (input[key] !== undefined)
        issues.push({
          path: [key],
          rule: 'does not apply to printer_state (it lasts until removed or duration_s ends)',
        });
  }
  if (action?.kind === 'drop_connector') {
    if (scope.connector === undefined)
      issues.push({ path: ['connector'], rule: 'is required with drop_connector' });
    for (const key of ['operation', 'printer', 'user', 'client'] as const)
      if (scope[key] !== undefined)
        issues.push({ path: [key], rule: 'does not apply to drop_connector (it is scoped by connector)' });
  } else if (action && scope.connector !== undefined)
    issues.push({ path: ['connector'], rule: 'applies to drop_connector only' });
  if (action?.kind === 'webhook_status') {
    for (const key of ['operation', 'printer', 'user', 'client'] as const)
      if (scope[key] !== undefined)
        issues.push({ path: [key], rule: 'does not apply to webhook_status (it is scoped by endpoint)' });
  } else if (action && scope.endpoint !== undefined)
    issues.push({ path: ['endpoint'], rule: 'applies to webhook_status only' });
  if (issues.length > 0 || !action) return { issues };
  const draft: FaultRuleDraft = { scope, action };
  if (times !== undefined) draft.times = times as number;
  if (duration !== undefined) draft.durationS = duration as number;
  return { draft, issues };
}

function checkAction(key: string, value: unknown, issues: FaultIssue[]): FaultAction | undefined {
  if (key === 'latency_ms') {
    if (isWhole(value, 1, MAX_LATENCY_MS)) return { kind: 'latency', ms: value };
    issues.push({ path: [key], rule: `must be a whole number of milliseconds from 1 to ${MAX_LATENCY_MS}` });
    return undefined;
  }
  if (key === 'end_job') return checkEndJob(value, issues);
  if (key === 'webhook_status') {
    if (isWhole(value, 300, 599)) return { kind: 'webhook_status', status: value };
    issues.push({ path: [key], rule: 'must be a failing HTTP status from 300 to 599' });
    return undefined;
  }
  if (key === 'drop_connector') {
    if (value === true) return { kind: 'drop_connector' };
    issues.push({ path: [key], rule: 'must be true' });
    return undefined;
  }
  if (key === 'printer_state') {
    if (value === 'offline' || value === 'jammed') return { kind: 'printer_state', state: value };
    issues.push({ path: [key], rule: 'must be offline or jammed' });
    return undefined;
  }
  if (key === 'slow_chunks_ms') {
    if (isWhole(value, 1, 60_000)) return { kind: 'slow_chunks', ms: value };
    issues.push({ path: [key], rule: 'must be a whole number of milliseconds from 1 to 60000' });
    return undefined;
  }
  if (key === 'cut') {
    if (value === true) return { kind: 'cut' };
    issues.push({ path: [key], rule: 'must be true' });
    return undefined;
  }
  return checkRespond(value, issues);
}

function checkEndJob(value: unknown, issues: FaultIssue[]): FaultAction | undefined {
  const shape = 'must be an object with one of error_code (a failure) or pages_printed (fewer pages)';
  if (!isObject(value)) {
    issues.push({ path: ['end_job'], rule: shape });
    return undefined;
  }
  const keys = Object.keys(value);
  const code = value['error_code'];
  const pages = value['pages_printed'];
  if (keys.length !== 1 || !['error_code', 'pages_printed'].includes(keys[0]!)) {
    issues.push({ path: ['end_job'], rule: shape });
    return undefined;
  }
  if (code !== undefined) {
    if (isWhole(code, 1, 2_147_483_647)) return { kind: 'end_job', errorCode: code };
    issues.push({ path: ['end_job', 'error_code'], rule: 'must be a whole number from 1 (e.g. 3011)' });
    return undefined;
  }
  if (isWhole(pages, 0, 1_000_000)) return { kind: 'end_job', pagesPrinted: pages };
  issues.push({ path: ['end_job', 'pages_printed'], rule: 'must be a whole number from 0' });
  return undefined;
}

function checkRespond(value: unknown, issues: FaultIssue[]): FaultAction | undefined {
  if (!isObject(value)) {
    issues.push({ path: ['respond'], rule: 'must be an object: {status, headers?, body?}' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(value))
    if (!['status', 'headers', 'body'].includes(key))
      issues.push({ path: ['respond', key], rule: 'unknown key (known: status, headers, body)' });
  const status = value['status'];
  if (!isWhole(status, 200, 599))
    issues.push({ path: ['respond', 'status'], rule: 'must be an HTTP status from 200 to 599' });
  const headers: Record<string, string> = {};
  const given = value['headers'];
  if (given !== undefined && !isObject(given))
    issues.push({ path: ['respond', 'headers'], rule: 'must be an object of header names and values' });
  for (const [name, v] of Object.entries(isObject(given) ? given : {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      issues.push({ path: ['respond', 'headers', name], rule: 'is not a valid header name' });
    else if ((typeof v !== 'string' && typeof v !== 'number') || /[\r\n]/.test(String(v)))
      issues.push({ path: ['respond', 'headers', name], rule: 'must be a string or number on one line' });
    else headers[name.toLowerCase()] = String(v);
  }
  if (issues.length > before) return undefined;
  return { kind: 'respond', status: status as number, headers, body: value['body'] };
}

/** The draft of a rule, or ValidationErrors naming every bad field (`respond.status`). */
export function parseFaultRule(input: unknown): FaultRuleDraft {
  const { draft, issues } = checkFaultRule(input);
  if (draft) return draft;
  throw new ValidationErrors(issues.map((i) => new ValidationError(fieldName(i.path), i.rule)));
}

/** `respond.headers.retry-after`, `[0]`, or `rule` for the rule itself. */
export function fieldName(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'rule';
  return path.reduce<string>(
    (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc === '' ? p : `${acc}.${p}`),
    '',
  );
}
