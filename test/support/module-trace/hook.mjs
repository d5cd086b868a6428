// Module resolve hook for register.mjs: appends the trace name (module-names.mjs) of every module
// the process resolves through import to the trace file, one per line.
import { appendFileSync } from 'node:fs';
import { traceNames } from './module-names.mjs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const names = file ? traceNames(resolved.url) : [];
  if (names.length > 0) appendFileSync(file, names.map((name) => `${name}\n`).join(''));
  return resolved;
}
