/**
 * Writes the JSON Schemas of the two configuration files into config/ (npm run schemas), for
 * editors and other tools. A unit test fails when the committed files are stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentConfigSchema } from '../src/config/agent-schema.js';
import { EmulatorSeedSchema } from '../src/config/emulator-seed-schema.js';

/** The generated files: name in config/ -> JSON text. Pure. */
export function schemaFiles(): Record<string, string> {
  return {
    'agent.schema.json': render(
      AgentConfigSchema,
      'agent.schema.json',
      'PrintRelay agent configuration (agent.yaml)',
    ),
    'emulator.schema.json': render(
      EmulatorSeedSchema,
      'emulator.schema.json',
      'PrintRelay emulator seed (emulator.yaml)',
    ),
  };
}

function render(schema: object, id: string, title: string): string {
  // JSON.stringify drops TypeBox's symbol keys, leaving plain JSON Schema.
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const document = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: id, title, ...plain };
  return `${JSON.stringify(document, null, 2)}\n`;
}

const configDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'config');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [name, text] of Object.entries(schemaFiles())) {
    writeFileSync(join(configDir, name), text);
    process.stdout.write(`wrote config/${name}\n`);
  }
}
