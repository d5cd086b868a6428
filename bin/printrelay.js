#!/usr/bin/env node
// Entry point of the printrelay command. In a checkout with its development dependencies it runs
// the TypeScript sources through tsx, so what runs is always what is in src/; a package (npm
// pack), a production install (--omit=dev, no tsx) and the Debian package run the compiled dist/
// (built by `npm run build`).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
const built = join(root, 'dist', 'cli', 'main.js');

/** Registers tsx for src/; false when tsx is not installed (a production install). */
async function typeScriptRunner() {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    return true;
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') return false;
    throw error;
  }
}

if (existsSync(source) && (await typeScriptRunner())) {
  await import(pathToFileURL(source).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  process.stderr.write(
    `printrelay: ${built} is missing: run \`npm run build\` (with the development dependencies) first\n`,
  );
  process.exit(1);
}
