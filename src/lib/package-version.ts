/**
 * The version of the installed package (package.json at the package root, lib/package-root.ts):
 * `printrelay --version` prints it and the connector registers with it as sw_version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

/** The `version` of package.json, or 0.0.0 when it has none. */
export function packageVersion(): string {
  const parsed = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return parsed.version ?? '0.0.0';
}
