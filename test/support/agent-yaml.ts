/**
 * A minimal agent.yaml for tests of commands that read one: the cloud section every config
 * needs, then the caller's lines (discovery, printers, ...), written to `dir/name`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the file and returns its path. */
export function writeAgentYaml(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    ['cloud:', '  url: http://127.0.0.1:8080', '  client_id: demo-app', ...lines, ''].join('\n'),
  );
  return file;
}
