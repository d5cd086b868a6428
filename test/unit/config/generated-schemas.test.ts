import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { schemaFiles, withOptionalDefaults } from '../../../scripts/generate-schemas.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Folders that hold no shipped file: dependencies, builds, tests, reports, dot folders. */
const NOT_SHIPPED = new Set([
  'node_modules',
  'test',
  'dist',
  'dist-deb',
  'dist-windows',
  'reports',
  'coverage',
]);

/**
 * Every YAML file the project ships (outside test/ and build output), with the schema it
 * follows. Read from the tree, not from git, so it also runs in a copy without .git (CI's other
 * Node lines).
 */
function shippedYamlFiles(): [string, string][] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || NOT_SHIPPED.has(entry.name)) continue;
      const path = dir === '.' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(entry.name)) files.push(path);
    }
  };
  walk('.');
  return files
    .sort()
    .map((file) => [file, file.includes('emulator') ? 'emulator.schema.json' : 'agent.schema.json']);
}

/** The published schema compiled by a standard draft 2020-12 validator, exactly as written. */
function validator(schemaName: string) {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  return ajv.compile(JSON.parse(readFileSync(`config/${schemaName}`, 'utf8')) as object);
}

describe('generated JSON Schemas in config/', () => {
  it.each(Object.entries(schemaFiles()))('%s is up to date (run npm run schemas)', (name, expected) => {
    expect(readFileSync(`config/${name}`, 'utf8')).toBe(expected);
  });

  it('covers the shipped example files and the Debian package configuration', () => {
    expect(shippedYamlFiles().map(([file]) => file)).toEqual(
      expect.arrayContaining([
        'config/agent.example.yaml',
        'config/emulator.example.yaml',
        'packaging/debian/agent.yaml',
      ]),
    );
  });

  it.each(shippedYamlFiles())('%s is valid against the published %s', (file, schemaName) => {
    const validate = validator(schemaName);
    validate(parse(readFileSync(file, 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
  });

  it.each(['agent.schema.json', 'emulator.schema.json'])('%s still refuses unknown keys', (schemaName) => {
    expect(validator(schemaName)({ unexpected: true })).toBe(false);
  });

  it('makes a key with a default optional at every depth, and keeps the others required', () => {
    const schema = {
      type: 'object',
      required: ['url', 'log'],
      properties: {
        url: { type: 'string' },
        log: {
          type: 'object',
          default: {},
          required: ['level', 'file'],
          properties: { level: { type: 'string', default: 'info' }, file: { type: 'string' } },
        },
        items: {
          type: 'array',
          items: { type: 'object', required: ['n'], properties: { n: { default: 1 } } },
        },
      },
    };
    expect(withOptionalDefaults(schema)).toEqual({
      type: 'object',
      required: ['url'],
      properties: {
        url: { type: 'string' },
        log: {
          type: 'object',
          default: {},
          required: ['file'],
          properties: { level: { type: 'string', default: 'info' }, file: { type: 'string' } },
        },
        items: { type: 'array', items: { type: 'object', properties: { n: { default: 1 } } } },
      },
    });
  });
});
