/**
 * Checking either configuration file without throwing (`printrelay config validate`, `doctor`).
 * Apart from load-config.ts because it needs the emulator seed's validator too.
 */
import { ConfigError, type ConfigIssue } from './config-error.js';
import { EMULATOR_SEED_RULES } from './emulator-seed-config.js';
import { AGENT_CONFIG_RULES, type ConfigKind, type LoadOptions, parseConfigText } from './load-config.js';

/** Validates either kind; returns the issues instead of throwing. */
export function checkConfig(
  kind: ConfigKind,
  text: string,
  fileName: string,
  options: LoadOptions = {},
): ConfigIssue[] {
  try {
    parseConfigText(kind === 'agent' ? AGENT_CONFIG_RULES : EMULATOR_SEED_RULES, text, fileName, options);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
}
