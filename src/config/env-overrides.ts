/**
 * Environment overrides of configuration values: `PRINTRELAY_<SECTION>__<KEY>` sets
 * `section.key` (double underscore between levels, names lower-cased; a digit-only level
 * indexes an array: PRINTRELAY_PRINTERS__0__URI). A name without a double underscore counts only
 * when it names a top-level setting (PRINTRELAY_DATA_DIR), so PRINTRELAY_LOG_LEVEL, read by the
 * logger itself, is left alone. Values are converted to the type the schema expects; the result
 * is validated like the file. Pure: the caller passes the environment.
 */
import { parse as parseYaml } from 'yaml';

/** The parts of a JSON Schema the overrides read: where values sit and which types they take. */
export interface OverrideSchema {
  type?: string | string[];
  const?: unknown;
  anyOf?: OverrideSchema[];
  properties?: Record<string, OverrideSchema>;
  items?: OverrideSchema;
}

/** One override that was applied: which variable set which path. */
export interface AppliedOverride {
  name: string;
  path: (string | number)[];
}

/** A variable whose value could not be used, with the reason. */
export interface OverrideProblem {
  name: string;
  path: (string | number)[];
  rule: string;
}

/** Applies every matching variable to `data` (a plain object, changed in place). */
export function applyEnvOverrides(
  data: Record<string, unknown>,
  schema: OverrideSchema,
  env: Record<string, string | undefined>,
  prefix = 'PRINTRELAY_',
): { applied: AppliedOverride[]; problems: OverrideProblem[] } {
  const applied: AppliedOverride[] = [];
  const problems: OverrideProblem[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (!name.startsWith(prefix) || value === undefined) continue;
    const path = overridePath(name.slice(prefix.length), schema);
    if (!path) continue;
    const converted = convert(value, subSchema(schema, path));
    if ('problem' in converted) {
      problems.push({ name, path, rule: converted.problem });
      continue;
    }
    const placed = setAt(data, path, converted.value);
    if (placed) problems.push({ name, path, rule: placed });
    else applied.push({ name, path });
  }
  return { applied, problems };
}

/** The data path a variable names, or undefined when it is not a configuration override. */
export function overridePath(rest: string, schema: OverrideSchema): (string | number)[] | undefined {
  if (!rest) return undefined;
  const levels = rest.split('__').map((l) => l.toLowerCase());
  if (levels.some((l) => l === '')) return undefined;
  if (levels.length === 1) {
    const properties = schema.properties ?? {};
    return levels[0]! in properties ? levels : undefined;
  }
  return levels.map((l) => (/^\d+$/.test(l) ? Number(l) : l));
}

/** The schema of the value at `path`, when the schema describes one. */
function subSchema(
  schema: OverrideSchema | undefined,
  path: readonly (string | number)[],
): OverrideSchema | undefined {
  let current: OverrideSchema | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    current = typeof segment === 'number' ? current.items : current.properties?.[segment];
  }
  return current;
}

/** JSON types a schema accepts (from `type`, `const` and union alternatives). */
function typesOf(schema: OverrideSchema | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  const { type } = schema;
  for (const t of Array.isArray(type) ? type : type ? [type] : []) out.add(t);
  if ('const' in schema) out.add(typeof schema.const === 'number' ? 'number' : typeof schema.const);
  for (const alt of schema.anyOf ?? []) for (const t of typesOf(alt)) out.add(t);
  return out;
}

function convert(raw: string, schema: OverrideSchema | undefined): { value: unknown } | { problem: string } {
  const types = typesOf(schema);
  if ((types.has('integer') || types.has('number')) && /^-?\d+(\.\d+)?$/.test(raw.trim())) {
    return { value: Number(raw.trim()) };
  }
  if (types.has('boolean') && /^(true|false)$/i.test(raw.trim())) {
    return { value: raw.trim().toLowerCase() === 'true' };
  }
  if (types.has('object') || types.has('array')) {
    try {
      return { value: parseYaml(raw) as unknown };
    } catch (error) {
      return { problem: `is not valid YAML/JSON (${(error as Error).message.split('\n')[0]})` };
    }
  }
  return { value: raw };
}

/** Sets a value, creating objects on the way; returns a problem when the path cannot exist. */
function setAt(
  data: Record<string, unknown>,
  path: readonly (string | number)[],
  value: unknown,
): string | undefined {
  let node: Record<string | number, unknown> = data;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i]!;
    let next = node[segment];
    if (next === undefined || next === null) {
      next = typeof path[i + 1] === 'number' ? [] : {};
      node[segment] = next;
    }
    if (typeof next !== 'object') return `cannot set inside ${String(segment)}, which is not a section`;
    node = next as Record<string | number, unknown>;
  }
  node[path[path.length - 1]!] = value;
  return undefined;
}
