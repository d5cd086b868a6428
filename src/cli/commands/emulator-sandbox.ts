/**
 * `printrelay emulator faults list|add|remove|clear` and `printrelay emulator clock
 * show|advance`: steer a running emulator's fault switchboard and test clock. `--url` (default
 * http://127.0.0.1:8080) names the emulator; on its machine no token is needed, elsewhere
 * PRINTRELAY_EMULATOR_TOKEN holds an organization admin's access token (an environment variable,
 * so it stays out of the shell history and the process list).
 */
import type { Command } from 'commander';
import {
  EmulatorSandboxClient,
  type FaultRuleWire,
  SandboxCallError,
} from '../../client/emulator-sandbox-client.js';
import { loadFaultFileRules } from '../../emulator/sandbox/faults/fault-file.js';
import { CliError } from '../cli-runtime.js';

interface TargetFlags {
  url: string;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Seconds of `90`, `90s`, `15m`, `2h` or `1d`; CliError naming the argument otherwise. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match)
    throw new CliError(`<duration>: "${text}" is not a duration: give seconds or e.g. 90s, 15m, 2h, 1d`);
  return Number(match[1]) * (UNITS[match[2] || 's'] as number);
}

/** Adds the `faults` and `clock` subcommands to `emulator`. */
export function addSandboxCommands(emulator: Command): void {
  const faults = emulator.command('faults').description("a running emulator's fault rules");
  target(faults.command('list').description('list the rules in force')).action(async (flags: TargetFlags) => {
    const rules = await run(() => client(flags).listFaults());
    if (rules.length === 0) process.stdout.write('no fault rules\n');
    for (const rule of rules) process.stdout.write(`${describeRule(rule)}\n`);
  });
  target(
    faults
      .command('add [rule]')
      .description('add a rule (JSON, one rule or an array) or the rules of a --file')
      .option('--file <file>', 'a fault scenario YAML file (version: 1, faults: [...])'),
  ).action(async (rule: string | undefined, flags: TargetFlags & { file?: string }) => {
    const rules = rulesToAdd(rule, flags.file);
    const added = await run(() => client(flags).addFaults(rules));
    for (const r of added) process.stdout.write(`added ${describeRule(r)}\n`);
  });
  target(faults.command('remove <id>').description('remove one rule')).action(
    async (id: string, flags: TargetFlags) => {
      await run(() => client(flags).removeFault(id));
      process.stdout.write(`removed ${id}\n`);
    },
  );
  target(faults.command('clear').description('remove every rule')).action(async (flags: TargetFlags) => {
    const { removed } = await run(() => client(flags).clearFaults());
    process.stdout.write(`removed ${removed} rule(s)\n`);
  });
  const clock = emulator.command('clock').description("a running emulator's test clock");
  target(clock.command('show').description("the emulator's time and offset")).action(
    async (flags: TargetFlags) => {
      const state = await run(() => client(flags).clock());
      process.stdout.write(`emulator time ${state.now} (offset +${state.offset_s} s)\n`);
    },
  );
  target(
    clock
      .command('advance <duration>')
      .description("move the emulator's clock forward (90, 90s, 15m, 2h, 1d)"),
  ).action(async (duration: string, flags: TargetFlags) => {
    const seconds = parseDuration(duration);
    const state = await run(() => client(flags).advanceClock(seconds));
    process.stdout.write(`emulator time ${state.now} (offset +${state.offset_s} s)\n`);
  });
}

function target(command: Command): Command {
  return command.option('--url <url>', 'the running emulator', 'http://127.0.0.1:8080');
}

function client(flags: TargetFlags): EmulatorSandboxClient {
  const token = process.env['PRINTRELAY_EMULATOR_TOKEN']?.trim();
  return new EmulatorSandboxClient(flags.url, token === '' ? undefined : token);
}

async function run<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SandboxCallError) throw new CliError(error.message);
    throw error;
  }
}

function rulesToAdd(rule: string | undefined, file: string | undefined): unknown {
  if ((rule === undefined) === (file === undefined))
    throw new CliError('faults add: give a rule (JSON) or --file, one of them');
  if (file !== undefined) return loadFaultFileRules(file);
  try {
    return JSON.parse(rule as string);
  } catch (error) {
    throw new CliError(`faults add: the rule is not JSON (${(error as Error).message})`);
  }
}

function describeRule(rule: FaultRuleWire): string {
  const { id, hits, created, remaining, ends, organization_id, ...given } = rule;
  const life = [
    `hits ${hits}`,
    remaining === undefined ? '' : `uses left ${remaining}`,
    ends === undefined ? '' : `ends ${ends}`,
  ];
  return `${id} ${JSON.stringify(given)} (${life.filter((p) => p !== '').join(', ')})`;
}
