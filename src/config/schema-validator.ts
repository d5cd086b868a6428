/**
 * Validation of configuration data with a validator Ajv generated at build time
 * (src/config/generated/, scripts/generate-validators.ts): every error at once, defaults filled
 * in, unknown keys reported by name, and each Ajv error turned into a path plus a rule in words
 * (positions are added by the loader, which knows the source). Nothing is compiled at run time.
 */
import type { ErrorObject } from 'ajv';
import { closestMatch } from '../lib/closest-match.js';

/** A broken rule before it is placed in the source. */
export interface SchemaIssue {
  /** Data path of the field the rule is about. */
  path: (string | number)[];
  rule: string;
  /** Where to point: the value itself, the field's key, or (missing field) its parent's key. */
  anchor: 'value' | 'key' | 'parent-key';
}

/** A validator as Ajv generates it: true when valid, else false with the errors on the function. */
export interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Checks data with one generated validator, which mutates the data by inserting defaults. */
export class SchemaValidator {
  constructor(private readonly validate: GeneratedValidator) {}

  /** Validates `data` in place (defaults applied); returns every issue, empty when valid. */
  check(data: unknown): SchemaIssue[] {
    if (this.validate(data)) return [];
    return toIssues(this.validate.errors ?? []);
  }
}

/** Turns ajv errors into issues; alternatives of a union collapse into one `must be one of`. */
export function toIssues(errors: readonly ErrorObject[]): SchemaIssue[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath);
  const issues: SchemaIssue[] = [];
  for (const error of errors) {
    if (unions.some((u) => error.schemaPath.startsWith(`${u}/`))) continue;
    issues.push(toIssue(error));
  }
  return issues;
}

function toIssue(error: ErrorObject): SchemaIssue {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: [...path, String(params.missingProperty)], rule: 'is required', anchor: 'parent-key' };
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys(
        (error.parentSchema?.properties as Record<string, unknown> | undefined) ?? {},
      );
      const closest = closestMatch(key, known);
      const rule = closest ? `unknown key (did you mean "${closest}"?)` : 'unknown key';
      return { path: [...path, key], rule, anchor: 'key' };
    }
    case 'const':
      return { path, rule: `must be ${JSON.stringify(params.allowedValue)}`, anchor: 'value' };
    case 'anyOf':
      return { path, rule: unionRule(error.schema), anchor: 'value' };
    case 'format':
      return { path, rule: `must be a valid ${String(params.format)}`, anchor: 'value' };
    default:
      return { path, rule: error.message ?? `breaks the ${error.keyword} rule`, anchor: 'value' };
  }
}

/** `must be one of: "a", "b", null` when every alternative is a constant, else a generic rule. */
function unionRule(alternatives: unknown): string {
  if (!Array.isArray(alternatives)) return 'must match one of the allowed forms';
  const values: string[] = [];
  for (const alt of alternatives as Record<string, unknown>[]) {
    if ('const' in alt) values.push(JSON.stringify(alt.const));
    else if (alt.type === 'null') values.push('null');
    else return 'must match one of the allowed forms';
  }
  return `must be one of: ${values.join(', ')}`;
}

/** JSON pointer -> path segments (digit-only segments become array indexes). */
export function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
