#!/usr/bin/env node
// Entry point of the printrelay command. In a checkout it runs the TypeScript sources through
// tsx, so what runs is always what is in src/; an installed bundle ships only dist/ (built by
// `npm run build`) and runs that.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href);
}
