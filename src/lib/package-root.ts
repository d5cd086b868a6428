/**
 * The root of the installed package: the nearest directory above this module that holds the
 * package.json named `printrelay`. Files the program reads from the package (package.json for the
 * version, drivers/, bin/ for a service definition) are found from it, so they are found the same
 * way whether this module runs as a source file (src/lib/), a compiled file (dist/lib/) or inside
 * a chunk of the bundle (dist/cli/chunks/), whose depth below the root differs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's name in its package.json: what marks the root. */
export const PACKAGE_NAME = 'printrelay';

let cached: string | undefined;

/**
 * The first directory from `start` upwards whose package.json is named `name`. Throws, naming
 * `start`, when none is; a package.json that cannot be parsed counts as not the package's.
 */
export function findPackageRoot(start: string, name = PACKAGE_NAME): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && packageName(file) === name) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json named "${name}" in ${start} or above it`);
  }
}

/** The package root of this running program (found once, then remembered). */
export function packageRoot(): string {
  cached ??= findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  return cached;
}

function packageName(file: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name as string | undefined;
  } catch {
    return undefined;
  }
}
