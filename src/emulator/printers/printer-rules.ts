/**
 * The admin spec's printer rules as pure validation: which fields a create (POST), replace (PUT)
 * or partial update (PATCH) may carry, their types and limits. Every broken rule is reported at
 * once (ValidationErrors naming field and rule). Uniqueness needs the database and is checked by
 * PrinterService. No I/O.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { PrinterStatus } from './printer-repo.js';

/** The printer statuses of the admin spec. */
export const PRINTER_STATUSES: readonly PrinterStatus[] = ['Online', 'Offline', 'Inproperly Configured'];
/** Formats a printer may declare on input (EMF appears only in responses). */
export const PRINTER_INPUT_FORMATS = ['RAW', 'PDF', 'XPS'] as const;
/** Lowest tp_id. */
export const TP_ID_MIN = 1;
/** Highest tp_id (spec: 1 to 2147483646). */
export const TP_ID_MAX = 2147483646;
/** Longest name, vendor_name and model_name. */
export const NAME_MAX = 255;

/** create: POST; replace: PUT; patch: PATCH. */
export type PrinterWriteMode = 'create' | 'replace' | 'patch';

/** The validated fields of a request; absent keys were not sent. */
export interface PrinterInput {
  name?: string;
  status?: PrinterStatus;
  tpId?: number;
  supportedFormats?: string[];
  vendorName?: string;
  modelName?: string;
  location?: string;
  pnpId?: string;
  connectorId?: string;
  driverId?: string | null;
}

/** Response-only fields a client may echo back in a PUT; they are ignored. */
const READ_ONLY = new Set([
  'id',
  'blob_capabilities',
  'auto_driver_assignment_state',
  'can_modify_favorite',
  'is_favorite',
  'manual_driver_id',
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type FieldParser = (value: unknown, errors: ValidationError[]) => unknown;

const PARSERS: Record<string, { key: keyof PrinterInput; parse: FieldParser }> = {
  name: { key: 'name', parse: (v, e) => parseName(v, e) },
  status: { key: 'status', parse: (v, e) => parseStatus(v, e) },
  tp_id: { key: 'tpId', parse: (v, e) => parseTpId(v, e) },
  supported_formats: { key: 'supportedFormats', parse: (v, e) => parseFormats(v, e) },
  vendor_name: { key: 'vendorName', parse: (v, e) => parseText('vendor_name', v, e, NAME_MAX) },
  model_name: { key: 'modelName', parse: (v, e) => parseText('model_name', v, e, NAME_MAX) },
  location: { key: 'location', parse: (v, e) => parseText('location', v, e, 1024) },
  pnp_id: { key: 'pnpId', parse: (v, e) => parseText('pnp_id', v, e, 1024) },
  connector_id: { key: 'connectorId', parse: (v, e) => parseUuid('connector_id', v, e, false) },
  driver_id: { key: 'driverId', parse: (v, e) => parseUuid('driver_id', v, e, true) },
};

const REQUIRED: Record<PrinterWriteMode, string[]> = {
  create: ['name', 'status'],
  replace: ['name', 'status', 'connector_id'],
  patch: [],
};

/** Validates a printer request body for `mode`; throws ValidationErrors listing every problem. */
export function parsePrinterInput(body: unknown, mode: PrinterWriteMode): PrinterInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationErrors([new ValidationError('body', 'must be a JSON object')]);
  }
  const errors: ValidationError[] = [];
  const input: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    // Own keys only: a field named __proto__ or constructor must not find Object's members.
    const parser = Object.hasOwn(PARSERS, field) ? PARSERS[field] : undefined;
    if (parser) input[parser.key] = parser.parse(value, errors);
    else if (!READ_ONLY.has(field)) errors.push(new ValidationError(field, 'unknown field'));
  }
  for (const field of REQUIRED[mode]) {
    if (!(field in body)) errors.push(new ValidationError(field, `required for ${mode}`));
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return input as PrinterInput;
}

function parseName(value: unknown, errors: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    errors.push(new ValidationError('name', 'must be a non-empty string'));
    return undefined;
  }
  if (value.length > NAME_MAX) errors.push(new ValidationError('name', `at most ${NAME_MAX} characters`));
  return value;
}

function parseStatus(value: unknown, errors: ValidationError[]): PrinterStatus | undefined {
  if (PRINTER_STATUSES.includes(value as PrinterStatus)) return value as PrinterStatus;
  errors.push(new ValidationError('status', `must be one of ${PRINTER_STATUSES.join(', ')}`));
  return undefined;
}

function parseTpId(value: unknown, errors: ValidationError[]): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= TP_ID_MIN && n <= TP_ID_MAX) return n;
  errors.push(new ValidationError('tp_id', `must be an integer from ${TP_ID_MIN} to ${TP_ID_MAX}`));
  return undefined;
}

function parseFormats(value: unknown, errors: ValidationError[]): string[] | undefined {
  const list =
    typeof value === 'string'
      ? value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : value;
  if (!Array.isArray(list) || list.some((f) => typeof f !== 'string')) {
    errors.push(new ValidationError('supported_formats', 'must be an array of strings'));
    return undefined;
  }
  const upper = [...new Set(list.map((f: string) => f.toUpperCase()))];
  const bad = upper.filter((f) => !PRINTER_INPUT_FORMATS.includes(f as never));
  if (bad.length > 0) {
    errors.push(
      new ValidationError(
        'supported_formats',
        `each must be one of ${PRINTER_INPUT_FORMATS.join(', ')} (got ${bad.join(', ')})`,
      ),
    );
  }
  return upper;
}

function parseText(
  field: string,
  value: unknown,
  errors: ValidationError[],
  max: number,
): string | undefined {
  if (value === null) return '';
  if (typeof value !== 'string') {
    errors.push(new ValidationError(field, 'must be a string'));
    return undefined;
  }
  if (value.length > max) errors.push(new ValidationError(field, `at most ${max} characters`));
  return value;
}

function parseUuid(
  field: string,
  value: unknown,
  errors: ValidationError[],
  nullable: boolean,
): string | null | undefined {
  if (value === null && nullable) return null;
  if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
  errors.push(new ValidationError(field, nullable ? 'must be a UUID or null' : 'must be a UUID'));
  return undefined;
}
