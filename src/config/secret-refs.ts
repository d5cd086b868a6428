/**
 * Secret references inside string values: `${env:NAME}` is replaced by the environment variable
 * NAME and `${file:/path}` by the content of that file (one trailing newline removed), so
 * configuration files need not hold secrets. A missing variable or unreadable file is an issue
 * naming the field. Reads files synchronously; holds nothing open.
 */
import { readFileSync } from 'node:fs';

/** A reference that could not be resolved. */
export interface SecretRefProblem {
  path: (string | number)[];
  rule: string;
}

const REFERENCE = /\$\{(env|file):([^}]*)\}/g;

/** Replaces every reference in the string values of `data` (in place); returns the problems. */
export function resolveSecretRefs(
  data: unknown,
  env: Record<string, string | undefined>,
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): SecretRefProblem[] {
  const problems: SecretRefProblem[] = [];
  walk(data, [], (value, path) => {
    let failed = false;
    const resolved = value.replace(REFERENCE, (whole, kind: string, ref: string) => {
      const result = kind === 'env' ? fromEnv(ref, env) : fromFile(ref, readFile);
      if ('problem' in result) {
        problems.push({ path, rule: result.problem });
        failed = true;
        return whole;
      }
      return result.value;
    });
    return failed ? value : resolved;
  });
  return problems;
}

function fromEnv(
  name: string,
  env: Record<string, string | undefined>,
): { value: string } | { problem: string } {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return { problem: `\${env:${name}} is not a valid variable name` };
  const value = env[name];
  if (value === undefined)
    return { problem: `environment variable ${name} (referenced as \${env:${name}}) is not set` };
  return { value };
}

function fromFile(path: string, readFile: (path: string) => string): { value: string } | { problem: string } {
  if (!path) return { problem: `\${file:} needs a path` };
  try {
    return { value: readFile(path).replace(/\r?\n$/, '') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { problem: `secret file ${path} (referenced as \${file:${path}}) cannot be read: ${code}` };
  }
}

type Visitor = (value: string, path: (string | number)[]) => string;

function walk(node: unknown, path: (string | number)[], visit: Visitor): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      if (typeof item === 'string') node[i] = visit(item, [...path, i]);
      else walk(item, [...path, i], visit);
    });
  } else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      if (typeof item === 'string') record[key] = visit(item, [...path, key]);
      else walk(item, [...path, key], visit);
    }
  }
}
