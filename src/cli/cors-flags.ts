/**
 * `--cors-origin <origin>` of `printrelay emulator` and `printrelay demo`: browser origins that
 * may call the emulator cross-origin besides those of registered OAuth redirect URLs
 * (emulator/http/cors-policy.ts). Repeatable, or comma-separated.
 */
import type { Command } from 'commander';
import { CliError } from './cli-runtime.js';

/** Flags carrying the extra origins. */
export interface CorsFlags {
  corsOrigin?: string[];
}

/** Adds --cors-origin (repeatable). */
export function addCorsOption(command: Command): Command {
  return command.option(
    '--cors-origin <origin>',
    'let a browser app at this origin call the emulator, e.g. https://app.example.com (repeatable; registered redirect URLs are allowed already)',
    (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((v) => v.trim())],
  );
}

/** The extra origins of the flags; CliError naming --cors-origin for a bad one. */
export async function corsOriginsOf(flags: CorsFlags): Promise<string[]> {
  const { corsOrigin } = await import('../emulator/http/cors-policy.js');
  try {
    return (flags.corsOrigin ?? []).filter((v) => v !== '').map(corsOrigin);
  } catch (error) {
    throw new CliError(`--cors-origin: ${(error as Error).message}`);
  }
}
