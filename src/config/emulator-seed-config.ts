/**
 * Loading the emulator's seed file (see load-config.ts for the steps): its own module, so that
 * only the emulator, `printrelay config validate` and tests load the seed's generated validator,
 * never the agent.
 */
import type { EmulatorSeed } from './emulator-seed-schema.js';
import * as emulatorValidator from './generated/emulator-seed-validator.js';
import { type ConfigKindRules, type LoadOptions, parseConfigText, readConfigSource } from './load-config.js';
import { type GeneratedValidator, SchemaValidator } from './schema-validator.js';

/** The seed: its generated validator; no environment overrides, no rules across fields. */
export const EMULATOR_SEED_RULES: ConfigKindRules = {
  validator: new SchemaValidator(emulatorValidator.validate as GeneratedValidator),
};

/** Parses and validates an emulator seed; throws ConfigError with every issue. */
export function parseEmulatorSeed(text: string, fileName: string, options: LoadOptions = {}): EmulatorSeed {
  return parseConfigText(EMULATOR_SEED_RULES, text, fileName, options) as EmulatorSeed;
}

/** Reads and validates an emulator seed file (see parseEmulatorSeed). */
export function loadEmulatorSeed(path: string, options: LoadOptions = {}): EmulatorSeed {
  return parseEmulatorSeed(readConfigSource(path), path, options);
}
