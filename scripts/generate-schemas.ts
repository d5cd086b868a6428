/**
 * Writes the JSON Schemas of the two configuration files into config/ (npm run schemas), for
 * editors and other tools: keys with a default are optional there, as they are in the files. A
 * unit test fails when the committed files are stale, and validates every shipped YAML file
 * against them with a standard validator.
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

/**
 * The schema as an editor should see it: a key with a default may be left out of the file (the
 * loader fills it in), so it is taken out of its object's `required` list, at every depth.
 * Returns a new value. Pure.
 */
export function withOptionalDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withOptionalDefaults);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, withOptionalDefaults(value)]),
  ) as Record<string, unknown>;
  const properties = node.properties as Record<string, { default?: unknown }> | undefined;
  if (Array.isArray(node.required) && properties) {
    const required = (node.required as string[]).filter((key) => properties[key]?.default === undefined);
    if (required.length > 0) node.required = required;
    else delete node.required;
  }
  return node;
}

function render(schema: object, id: string, title: string): string {
  // JSON.stringify drops TypeBox's symbol keys, leaving plain JSON Schema.
  const plain = withOptionalDefaults(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
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
