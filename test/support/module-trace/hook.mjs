// Module resolve hook for register.mjs: appends the trace name (module-names.mjs) of every module
// the process resolves through import to the trace file, one per line.
import { appendFileSync } from 'node:fs';
import { moduleName } from './module-names.mjs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const name = file ? moduleName(resolved.url) : undefined;
  if (name) appendFileSync(file, `${name}\n`);
  return resolved;
}
