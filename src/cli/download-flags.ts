/**
 * The download caps of `printrelay emulator` (emulator/http/download-gate.ts):
 * `--downloads-max <n>` document bodies at once (default 32), `--downloads-max-per-org <n>` of
 * them for one organization (default 8, at most --downloads-max), `--downloads-wait-ms <ms>` the
 * longest wait for a slot before 503 (default 10000; 0: refused at once).
 */
import type { Command } from 'commander';
import { parseIntegerOption } from './cli-runtime.js';
import { CliError } from './cli-runtime.js';

/** Flags carrying the caps (strings as given, defaults filled in by commander). */
export interface DownloadFlags {
  downloadsMax: string;
  downloadsMaxPerOrg: string;
  downloadsWaitMs: string;
}

/** Adds the three flags with their defaults. */
export function addDownloadOptions(command: Command): Command {
  return command
    .option('--downloads-max <n>', 'document downloads sent at once, every organization together', '32')
    .option('--downloads-max-per-org <n>', 'document downloads sent at once for one organization', '8')
    .option(
      '--downloads-wait-ms <ms>',
      'longest wait for a download slot before 503 with Retry-After (0: refuse at once)',
      '10000',
    );
}

/** The emulator's `downloads` option of the flags; CliError naming the flag and its rule. */
export function downloadLimitsOf(flags: DownloadFlags): {
  maxActive: number;
  maxActivePerTenant: number;
  maxWaitMs: number;
} {
  const maxActive = parseIntegerOption('--downloads-max', flags.downloadsMax, 1, 10_000);
  const maxActivePerTenant = parseIntegerOption(
    '--downloads-max-per-org',
    flags.downloadsMaxPerOrg,
    1,
    10_000,
  );
  if (maxActivePerTenant > maxActive)
    throw new CliError(
      `--downloads-max-per-org: must be at most --downloads-max (${maxActive}), got ${maxActivePerTenant}`,
    );
  const maxWaitMs = parseIntegerOption('--downloads-wait-ms', flags.downloadsWaitMs, 0, 600_000);
  return { maxActive, maxActivePerTenant, maxWaitMs };
}
