/**
 * `--allow-outbound <cidr>` of `printrelay emulator` and `printrelay demo`: address ranges that
 * fileurl fetches and webhook deliveries may reach although private, loopback or link-local
 * (emulator/http/outbound-address-policy.ts). Repeatable, or comma-separated.
 */
import type { Command } from 'commander';
import { CliError } from './cli-runtime.js';

/** Flags carrying the allow-list. */
export interface OutboundFlags {
  allowOutbound?: string[];
}

/** Adds --allow-outbound (repeatable). */
export function addOutboundOption(command: Command, defaultNote: string): Command {
  return command.option(
    '--allow-outbound <cidr>',
    `let fileurl and webhooks reach this private/loopback range, e.g. 192.168.10.0/24 or ::1 (repeatable; ${defaultNote})`,
    (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((v) => v.trim())],
  );
}

/** The allow-list of the flags after `base`; CliError naming --allow-outbound for a bad entry. */
export async function outboundAllowOf(flags: OutboundFlags, base: readonly string[] = []): Promise<string[]> {
  const { OutboundAddressPolicy } = await import('../emulator/http/outbound-address-policy.js');
  const list = [...base, ...(flags.allowOutbound ?? []).filter((v) => v !== '')];
  try {
    new OutboundAddressPolicy(list);
  } catch (error) {
    throw new CliError(`--allow-outbound: ${(error as Error).message}`);
  }
  return list;
}
