// Module resolve hook for register.mjs: appends each bare specifier (a package) to the trace file.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function resolve(specifier, context, next) {
  if (file && !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.includes(':')) {
    appendFileSync(file, `${specifier}\n`);
  }
  return next(specifier, context);
}
