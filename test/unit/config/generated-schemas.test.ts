import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { schemaFiles } from '../../../scripts/generate-schemas.js';

describe('generated JSON Schemas in config/', () => {
  it.each(Object.entries(schemaFiles()))('%s is up to date (run npm run schemas)', (name, expected) => {
    expect(readFileSync(`config/${name}`, 'utf8')).toBe(expected);
  });

  it.each([
    ['agent.schema.json', 'config/agent.example.yaml'],
    ['emulator.schema.json', 'config/emulator.example.yaml'],
  ])('%s accepts its example file as a plain JSON Schema', (schemaName, example) => {
    const schema = JSON.parse(readFileSync(`config/${schemaName}`, 'utf8')) as Record<string, unknown>;
    const { $schema: _ignored, ...rest } = schema;
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, useDefaults: true });
    const validate = ajv.compile(rest);
    expect(validate(parse(readFileSync(example, 'utf8')))).toBe(true);
    expect(validate({ unexpected: true })).toBe(false);
  });
});
