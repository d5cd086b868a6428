/**
 * CreateLocalJob / UpdateLocalJob parameters: typed form, validation of query values against
 * the spec's parameter table, and the query form a client sends. Pure. Values are parsed
 * leniently (`"1"`, case of enum words) and validated strictly; every broken rule is reported at
 * once in ValidationErrors (the server answers X-FMP-Return 12). Unknown parameters are ignored
 * so that future parameters of newer devices do not break the command.
 */
import { ValidationError, ValidationErrors } from '../lib/errors.js';

/** Local job states (parameter Status). */
export type LocalJobStatus = 'Pending' | 'Succeeded' | 'Failed';

/** The optional parameters both commands share. */
export interface LocalJobFields {
  Color?: 0 | 1;
  Copies?: number;
  Duplex?: 0 | 1;
  Filename?: string;
  PageCoverage?: number;
  PaperId?: number;
  PaperName?: string;
  PrintedColorPages?: number;
  PrintedPages?: number;
  PrintedSheets?: number;
  Status?: LocalJobStatus;
  TotalPrintedColorPages?: number;
  TotalPrintedPages?: number;
  TotalPrintedSheets?: number;
}

/** CreateLocalJob parameters. */
export interface CreateLocalJobParams extends LocalJobFields {
  Printer: string;
  Type: 'Copy';
}

/** UpdateLocalJob parameters (only changed ones besides JobId). */
export interface UpdateLocalJobParams extends LocalJobFields {
  JobId: string;
}

type Rule = { kind: 'flag' } | { kind: 'int'; min: number; max: number } | { kind: 'text'; max: number };
const INT_MAX = 2_147_483_647;

const fieldRules: Record<keyof LocalJobFields, Rule> = {
  Color: { kind: 'flag' },
  Copies: { kind: 'int', min: 1, max: 9999 },
  Duplex: { kind: 'flag' },
  Filename: { kind: 'text', max: 255 },
  PageCoverage: { kind: 'int', min: 0, max: 100 },
  PaperId: { kind: 'int', min: 1, max: 32767 },
  PaperName: { kind: 'text', max: 64 },
  PrintedColorPages: { kind: 'int', min: 0, max: INT_MAX },
  PrintedPages: { kind: 'int', min: 0, max: INT_MAX },
  PrintedSheets: { kind: 'int', min: 0, max: INT_MAX },
  Status: { kind: 'text', max: 16 },
  TotalPrintedColorPages: { kind: 'int', min: 0, max: INT_MAX },
  TotalPrintedPages: { kind: 'int', min: 0, max: INT_MAX },
  TotalPrintedSheets: { kind: 'int', min: 0, max: INT_MAX },
};

/**
 * The names of the parameters both commands share, in the spec's spelling: the one list the
 * emulator's /TPFM/ query (its parameter names, its OpenAPI description) is built from.
 */
export const LOCAL_JOB_FIELDS = Object.keys(fieldRules) as readonly (keyof LocalJobFields)[];

const statuses: LocalJobStatus[] = ['Pending', 'Succeeded', 'Failed'];

function parseField(name: string, rule: Rule, raw: string, errors: ValidationError[]): unknown {
  const value = raw.trim();
  if (rule.kind === 'flag') {
    if (value === '0' || value === '1') return Number(value);
    errors.push(new ValidationError(name, 'must be 0 or 1'));
  } else if (rule.kind === 'int') {
    const n = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= rule.min && n <= rule.max) return n;
    errors.push(new ValidationError(name, `must be an integer from ${rule.min} to ${rule.max}`));
  } else if (name === 'Status') {
    const status = statuses.find((s) => s.toLowerCase() === value.toLowerCase());
    if (status) return status;
    errors.push(new ValidationError(name, 'must be Pending, Succeeded or Failed'));
  } else if (value.length === 0 || value.length > rule.max) {
    errors.push(new ValidationError(name, `must be 1 to ${rule.max} characters`));
  } else {
    return value;
  }
  return undefined;
}

function parseFields(query: Record<string, string | undefined>, errors: ValidationError[]): LocalJobFields {
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(fieldRules)) {
    const raw = query[name];
    if (raw === undefined) continue;
    const value = parseField(name, rule, raw, errors);
    if (value !== undefined) out[name] = value;
  }
  const f = out as LocalJobFields;
  if (
    f.PrintedColorPages !== undefined &&
    f.PrintedPages !== undefined &&
    f.PrintedColorPages > f.PrintedPages
  ) {
    errors.push(new ValidationError('PrintedColorPages', 'must be at most PrintedPages'));
  }
  const totalColor = f.TotalPrintedColorPages;
  if (totalColor !== undefined && f.TotalPrintedPages !== undefined && totalColor > f.TotalPrintedPages) {
    errors.push(new ValidationError('TotalPrintedColorPages', 'must be at most TotalPrintedPages'));
  }
  return f;
}

function refuse(
  query: Record<string, string | undefined>,
  names: string[],
  command: string,
  errors: ValidationError[],
) {
  for (const name of names) {
    if (query[name] !== undefined) errors.push(new ValidationError(name, `is not a parameter of ${command}`));
  }
}

/** Validates CreateLocalJob query parameters. Throws ValidationErrors listing every broken rule. */
export function parseCreateLocalJob(query: Record<string, string | undefined>): CreateLocalJobParams {
  const errors: ValidationError[] = [];
  const printer = query['Printer']?.trim();
  if (!printer) errors.push(new ValidationError('Printer', 'is required'));
  const type = query['Type']?.trim();
  if (!type) errors.push(new ValidationError('Type', 'is required'));
  else if (type.toLowerCase() !== 'copy') errors.push(new ValidationError('Type', 'must be Copy'));
  refuse(query, ['JobId'], 'CreateLocalJob', errors);
  const fields = parseFields(query, errors);
  if (errors.length > 0) throw new ValidationErrors(errors);
  return { Printer: printer!, Type: 'Copy', ...fields };
}

/** Validates UpdateLocalJob query parameters. Throws ValidationErrors listing every broken rule. */
export function parseUpdateLocalJob(query: Record<string, string | undefined>): UpdateLocalJobParams {
  const errors: ValidationError[] = [];
  const jobId = query['JobId']?.trim();
  if (!jobId) errors.push(new ValidationError('JobId', 'is required'));
  refuse(query, ['Printer', 'Type'], 'UpdateLocalJob', errors);
  const fields = parseFields(query, errors);
  if (errors.length > 0) throw new ValidationErrors(errors);
  return { JobId: jobId!, ...fields };
}

/** The query form of typed parameters (undefined values left out), for a client to send. */
export function localJobQuery(params: CreateLocalJobParams | UpdateLocalJobParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) out[key] = String(value);
  }
  return out;
}
