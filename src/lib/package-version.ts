/**
 * The version of the installed package (package.json next to src/ or dist/): `printrelay
 * --version` prints it and the connector registers with it as sw_version.
 */
import { readFileSync } from 'node:fs';

/** The `version` of package.json, or 0.0.0 when it has none. */
export function packageVersion(): string {
  const url = new URL('../../package.json', import.meta.url);
  const parsed = JSON.parse(readFileSync(url, 'utf8')) as { version?: string };
  return parsed.version ?? '0.0.0';
}
