/**
 * Pure validation of the bodies of the groups, printing users and assignments endpoints. Every
 * broken rule is reported at once (ValidationErrors naming field and rule). Whether a group id
 * names a group of the caller's organization needs the database and is checked by the services.
 * Unknown fields: ignored on POST (create), 400 naming the field on PATCH and DELETE, as the
 * printer routes do; response-only fields a client echoes back are ignored. No I/O.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { GroupFields } from './group-repo.js';
import type { PrintingSettings } from '../accounts/accounts-face.js';

/** Longest group name. */
export const GROUP_NAME_MAX = 255;
/** Longest group description and origin provider. */
export const GROUP_TEXT_MAX = 1024;
/** Origin provider of groups created without one. */
export const DEFAULT_ORIGIN_PROVIDER = 'local';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A group reference of a request: its id (lowercase) and the field that named it. */
export interface GroupRef {
  groupId: string;
  field: string;
  forceChosen: boolean;
}

/** A validated group body: the fields sent, and organization_id when sent. */
export interface GroupInput {
  fields: Partial<GroupFields>;
  organizationId?: string;
}

/** Validated PATCH /printing/v1/users/<id>/ body. */
export interface PrintingUserInput {
  groups: GroupRef[];
  settings: Partial<PrintingSettings>;
}

type Body = Record<string, unknown>;

function objectBody(body: unknown, field = 'body'): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationErrors([new ValidationError(field, 'must be a JSON object')]);
  }
  return body as Body;
}

function rejectUnknown(body: Body, known: readonly string[], errors: ValidationError[], prefix = ''): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) errors.push(new ValidationError(`${prefix}${key}`, 'unknown field'));
  }
}

function text(body: Body, field: string, max: number, errors: ValidationError[], nonEmpty = false) {
  const value = body[field];
  if (typeof value !== 'string' || (nonEmpty && value.trim() === '')) {
    errors.push(new ValidationError(field, nonEmpty ? 'must be a non-empty string' : 'must be a string'));
    return undefined;
  }
  if (value.length > max) errors.push(new ValidationError(field, `at most ${max} characters`));
  return value;
}

function flag(body: Body, field: string, errors: ValidationError[]): boolean | undefined {
  const value = body[field];
  if (typeof value === 'boolean') return value;
  errors.push(new ValidationError(field, 'must be a boolean'));
  return undefined;
}

const GROUP_WRITABLE = [
  'name',
  'description',
  'local_printing_enabled',
  'myprinters_enabled',
  'origin',
  'organization_id',
];
const GROUP_READ_ONLY = ['id', 'num_members', 'num_printers'];

/**
 * A group body. create: name required, description optional (the samples omit it); update: name
 * and description required (the spec's PATCH row and attribute table), the rest optional.
 */
export function parseGroupInput(raw: unknown, mode: 'create' | 'update'): GroupInput {
  const body = objectBody(raw);
  const errors: ValidationError[] = [];
  if (mode === 'update') rejectUnknown(body, [...GROUP_WRITABLE, ...GROUP_READ_ONLY], errors);
  const required = mode === 'create' ? ['name'] : ['name', 'description'];
  for (const field of required) {
    if (!(field in body)) errors.push(new ValidationError(field, `required on ${mode}`));
  }
  const fields: Partial<GroupFields> = {};
  const input: GroupInput = { fields };
  if ('name' in body) fields.name = text(body, 'name', GROUP_NAME_MAX, errors, true);
  if ('description' in body) {
    fields.description = body.description === null ? '' : text(body, 'description', GROUP_TEXT_MAX, errors);
  }
  if ('local_printing_enabled' in body)
    fields.localPrintingEnabled = flag(body, 'local_printing_enabled', errors);
  if ('myprinters_enabled' in body) fields.myprintersEnabled = flag(body, 'myprinters_enabled', errors);
  if ('origin' in body) fields.originProvider = parseOrigin(body.origin, errors);
  if ('organization_id' in body) {
    const org = body.organization_id;
    if (typeof org === 'string' && UUID.test(org)) input.organizationId = org.toLowerCase();
    else errors.push(new ValidationError('organization_id', 'must be a UUID'));
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return input;
}

function parseOrigin(value: unknown, errors: ValidationError[]): string | undefined {
  if (value === null) return DEFAULT_ORIGIN_PROVIDER;
  const provider = (value as Body | undefined)?.provider;
  if (typeof value !== 'object' || Array.isArray(value) || typeof provider !== 'string' || provider === '') {
    errors.push(new ValidationError('origin', 'must be an object with a non-empty string provider'));
    return undefined;
  }
  if (provider.length > GROUP_TEXT_MAX)
    errors.push(new ValidationError('origin.provider', `at most ${GROUP_TEXT_MAX} characters`));
  return provider;
}

const USER_FLAGS: Record<string, keyof PrintingSettings> = {
  local_printing_enabled: 'localPrintingEnabled',
  self_service_enabled: 'selfServiceEnabled',
  myprinters_enabled: 'myprintersEnabled',
  pull_printing_enabled: 'pullPrintingEnabled',
};

/** PATCH /printing/v1/users/<id>/: groups required (the full membership list), switches optional. */
export function parsePrintingUserInput(raw: unknown): PrintingUserInput {
  const body = objectBody(raw);
  const errors: ValidationError[] = [];
  rejectUnknown(body, ['id', 'groups', ...Object.keys(USER_FLAGS)], errors);
  const settings: Partial<PrintingSettings> = {};
  for (const [field, key] of Object.entries(USER_FLAGS)) {
    if (field in body) settings[key] = flag(body, field, errors);
  }
  let groups: GroupRef[] = [];
  if (!('groups' in body))
    errors.push(new ValidationError('groups', 'required: the full list of memberships'));
  else groups = parseGroupRefs(body.groups, 'groups', errors, false);
  if (errors.length > 0) throw new ValidationErrors(errors);
  return { groups, settings };
}

/**
 * The body of PATCH and DELETE /printing/v1/assignments/<printer_id>/:
 * `{assignment: [{groups: [{group_id, force_chosen?}]}]}`; the groups of every element, in order.
 */
export function parseAssignmentChange(raw: unknown): GroupRef[] {
  const body = objectBody(raw);
  const errors: ValidationError[] = [];
  rejectUnknown(body, ['assignment', 'printer_id', 'printer_name'], errors);
  const list = body.assignment;
  const refs: GroupRef[] = [];
  if (!Array.isArray(list)) {
    errors.push(new ValidationError('assignment', 'required: an array of objects with groups'));
  } else {
    list.forEach((element, i) => {
      const prefix = `assignment[${i}]`;
      if (typeof element !== 'object' || element === null || Array.isArray(element)) {
        errors.push(new ValidationError(prefix, 'must be an object with groups'));
        return;
      }
      rejectUnknown(element as Body, ['groups', 'settings'], errors, `${prefix}.`);
      refs.push(...parseGroupRefs((element as Body).groups, `${prefix}.groups`, errors, true));
    });
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return refs;
}

function parseGroupRefs(value: unknown, field: string, errors: ValidationError[], forceChosen: boolean) {
  if (!Array.isArray(value)) {
    errors.push(new ValidationError(field, 'must be an array of {group_id}'));
    return [];
  }
  const refs: GroupRef[] = [];
  value.forEach((item, i) => {
    const at = `${field}[${i}]`;
    const id = (item as Body | null)?.group_id;
    if (typeof id !== 'string' || !UUID.test(id)) {
      errors.push(new ValidationError(`${at}.group_id`, 'must be a UUID'));
      return;
    }
    const force = forceChosen ? (item as Body).force_chosen : undefined;
    if (force !== undefined && typeof force !== 'boolean') {
      errors.push(new ValidationError(`${at}.force_chosen`, 'must be a boolean'));
    }
    refs.push({ groupId: id.toLowerCase(), field: `${at}.group_id`, forceChosen: force === true });
  });
  return refs;
}
