// Loaded with `node --import` (NODE_OPTIONS): records every module a process loads into the file
// named by PRINTRELAY_MODULE_TRACE, one name per line (module-names.mjs: a package name, a
// src/ file or a node: built-in). Imports are seen by the resolve hook as they happen; modules
// that CommonJS packages require() never pass that hook, so the CommonJS cache is added when the
// process exits. A test reads the file after stopping the process (tests of what the agent loads).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { traceNames } from './module-names.mjs';

const file = process.env.PRINTRELAY_MODULE_TRACE;
if (file) {
  register(new URL('./hook.mjs', import.meta.url), { data: { file } });
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    const names = Object.keys(cache).flatMap(traceNames);
    appendFileSync(file, names.map((name) => `${name}\n`).join(''));
  });
}
