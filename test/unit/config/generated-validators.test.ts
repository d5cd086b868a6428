import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { plainSchema, VALIDATOR_OPTIONS, validatorFiles } from '../../../scripts/generate-validators.js';
import { AgentConfigSchema } from '../../../src/config/agent-schema.js';
import { EmulatorSeedSchema } from '../../../src/config/emulator-seed-schema.js';
import * as agentValidator from '../../../src/config/generated/agent-config-validator.js';
import * as emulatorValidator from '../../../src/config/generated/emulator-seed-validator.js';
import type { GeneratedValidator } from '../../../src/config/schema-validator.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** What Ajv compiles from the schema at run time, as the loader did before validators were generated. */
function compiledNow(schema: TSchema): GeneratedValidator {
  const ajv = new Ajv(VALIDATOR_OPTIONS);
  addFormats(ajv);
  return ajv.compile(plainSchema(schema));
}

/** Runs a validator on a copy of `data`: the verdict, the errors and the data with defaults. */
function outcome(validate: GeneratedValidator, data: unknown) {
  const copy = structuredClone(data);
  const valid = validate(copy);
  return { valid, errors: validate.errors ?? null, data: copy };
}

const brokenAgent = {
  version: 2,
  cloud: { url: 'ftp://cloud', client_id: '', channel: 'smoke', poll_interval_s: 0, extra: true },
  printers: [{ name: '', uri: 'lpd://printer', enabled: 'yes', color: 'red' }],
  unexpected: 1,
};
const brokenSeed = {
  organizations: [
    {
      name: '',
      users: [{ email: 'not-an-address', password: 'pw', roles: [], cards: ['with space'] }],
      clients: [{ client_id: 'bad id', name: 'App', client_type: 'secret', grant_types: ['magic'] }],
    },
  ],
  unknown: true,
};

describe('validators generated at build time (src/config/generated/)', () => {
  it.each(Object.entries(validatorFiles()))('%s is up to date (run npm run validators)', (path, expected) => {
    expect(readFileSync(path, 'utf8')).toBe(expected);
  });

  it('the agent validator exports the plain schema that environment overrides read', () => {
    expect(agentValidator.schema).toEqual(plainSchema(AgentConfigSchema));
  });

  const agentExample = () => parse(readFileSync('config/agent.example.yaml', 'utf8')) as unknown;
  const seedExample = () => parse(readFileSync('config/emulator.example.yaml', 'utf8')) as unknown;
  const brokenAgentRules =
    'additionalProperties,const,additionalProperties,pattern,minLength,const,const,anyOf,minimum,additionalProperties,minLength,pattern,type';
  const brokenSeedRules =
    'additionalProperties,additionalProperties,minLength,format,minLength,minItems,pattern';

  it.each([
    ['agent.yaml, the example', AgentConfigSchema, agentValidator.validate, agentExample, ''],
    [
      'agent.yaml, broken in many fields',
      AgentConfigSchema,
      agentValidator.validate,
      () => brokenAgent,
      brokenAgentRules,
    ],
    ['agent.yaml, empty', AgentConfigSchema, agentValidator.validate, () => ({}), 'required'],
    ['emulator.yaml, the example', EmulatorSeedSchema, emulatorValidator.validate, seedExample, ''],
    [
      'emulator.yaml, broken in many fields',
      EmulatorSeedSchema,
      emulatorValidator.validate,
      () => brokenSeed,
      brokenSeedRules,
    ],
  ])(
    '%s: same verdict, errors and defaults as Ajv compiling the schema now',
    (_name, schema, generated, input, rules) => {
      const expected = outcome(compiledNow(schema as TSchema), input());
      const actual = outcome(generated as GeneratedValidator, input());
      expect(actual).toEqual(expected);
      expect(actual.valid).toBe(rules === '');
      expect((actual.errors ?? []).map((e) => e.keyword).join(',')).toBe(rules);
    },
  );
});
