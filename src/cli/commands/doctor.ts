/**
 * `printrelay doctor [--config FILE] [--data-dir DIR] [--json]`: checks this machine for the
 * agent, before and after the install — the file, the data directory, a running agent, DNS, TLS,
 * clock and token against the cloud, CUPS, each printer and each card reader — and prints each
 * finding with its fix. Exit 1 when a check failed. Changes nothing (no file migrated, no token
 * refreshed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { readCaFile } from '../../client/cloud-trust.js';
import type { AgentConfig } from '../../config/agent-schema.js';
import { migrateAgentText } from '../../config/config-migrations.js';
import { parseAgentConfig } from '../../config/load-config.js';
import { defaultConfigPath } from '../../config/paths.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import { defaultBackendRegistry } from '../../printing/backend-registry.js';
import { CliError } from '../cli-runtime.js';
import { urlOf } from '../control-address.js';
import { cloudChecks } from '../doctor/cloud-checks.js';
import {
  type Check,
  type CheckResult,
  exitCodeOf,
  formatResults,
  runChecks,
  skip,
} from '../doctor/doctor-check.js';
import { printerChecks, readerChecks } from '../doctor/device-checks.js';
import { agentCheck, configCheck, cupsCheck, cupsServers, dataDirCheck } from '../doctor/local-checks.js';
import { agentDataDir } from '../agent-settings.js';

interface DoctorFlags {
  config?: string;
  dataDir?: string;
  json?: boolean;
}

/** What a doctor run may be given besides the flags (tests: clock, extra CAs, environment). */
export interface DoctorOptions {
  clock?: Clock;
  ca?: string[];
  env?: Record<string, string | undefined>;
}

/** Registers `doctor`. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check this machine for the agent and print each finding with its fix')
    .option('--config <file>', `agent.yaml (default ${defaultConfigPath()})`)
    .option('--data-dir <dir>', 'state directory (default: data_dir of the file, else the platform default)')
    .option('--json', 'print the findings as JSON')
    .action(async (flags: DoctorFlags) => {
      const results = await runDoctor(flags);
      const text = flags.json ? JSON.stringify(results, null, 2) : formatResults(results).join('\n');
      process.stdout.write(`${text}\n`);
      process.exitCode = exitCodeOf(results);
    });
}

/** Runs every check for the flags; returns the findings in order. */
export async function runDoctor(flags: DoctorFlags, options: DoctorOptions = {}): Promise<CheckResult[]> {
  const env = options.env ?? process.env;
  const file = flags.config ?? defaultConfigPath();
  const text = readText(file);
  const first = configCheck(file, text, env);
  const config = first.status === 'ok' && text !== undefined ? load(text, file, env) : undefined;
  if (!config) {
    const rest = [
      'data dir',
      'agent',
      'dns',
      'cloud',
      'tls',
      'clock',
      'token',
      'cups',
      'printers',
      'readers',
    ];
    return [first, ...rest.map((name) => skip(name, 'needs a valid configuration file'))];
  }
  const dataDir = agentDataDir(flags.dataDir, config);
  const checks: Check[] = [
    { name: 'data dir', run: async () => dataDirCheck(dataDir) },
    agentCheck(config.control.enabled ? { url: urlOf(config.control), source: file, dataDir } : undefined),
    ...cloudChecks({
      cloudUrl: config.cloud.url,
      clock: options.clock ?? systemClock,
      tokensFile: join(dataDir, 'tokens.json'),
      passwordConfigured: Boolean(config.cloud.username && config.cloud.password),
      ...cloudCa(options.ca, config.cloud.ca_file),
    }),
    cupsCheck(cupsServers(config, env)),
    ...printerChecks(config, defaultBackendRegistry(), dataDir),
    ...readerChecks(config),
  ];
  return [first, ...(await runChecks(checks))];
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function load(text: string, file: string, env: Record<string, string | undefined>): AgentConfig {
  return parseAgentConfig(migrateAgentText(text, file)?.text ?? text, file, { env });
}

/** The CAs the cloud checks trust besides the system roots: the caller's, else cloud.ca_file. */
function cloudCa(given: string[] | undefined, caFile: string | undefined): { ca?: string[] } {
  if (given) return { ca: given };
  if (!caFile) return {};
  try {
    return { ca: [readCaFile(caFile, 'cloud.ca_file')] };
  } catch (error) {
    throw new CliError(errorMessage(error));
  }
}
