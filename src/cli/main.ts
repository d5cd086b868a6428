/**
 * The printrelay command: builds the commander program (one file per command under
 * commands/, each registered here with one line) and runs it. bin/printrelay.js imports this
 * module, so importing it runs the CLI with process.argv.
 *
 * Each command module is imported only when it runs: `printrelay agent` loads the agent's
 * modules and never the emulator's, the printers discovery or the progress bar of `print`.
 * Help without a command (or an unknown name) registers them all, so it lists every command.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { packageVersion } from '../lib/package-version.js';
import { DatabaseUnreadableError } from '../lib/database-unreadable.js';
import { CliError } from './cli-runtime.js';
import { EXIT_CODES } from './exit-codes.js';

type Register = (program: Command) => void;

/** Command name -> its registration, imported on demand (in the order help lists them). */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  demo: async () => (await import('./commands/demo.js')).registerDemoCommand,
  emulator: async () => (await import('./commands/emulator.js')).registerEmulatorCommand,
  agent: async () => (await import('./commands/agent.js')).registerAgentCommand,
  print: async () => (await import('./commands/print.js')).registerPrintCommand,
  config: async () => (await import('./commands/config.js')).registerConfigCommand,
  printers: async () => (await import('./commands/printers.js')).registerPrintersCommand,
  card: async () => (await import('./commands/card.js')).registerCardCommand,
  swipe: async () => (await import('./commands/swipe.js')).registerSwipeCommand,
  service: async () => (await import('./commands/service.js')).registerServiceCommand,
  status: async () => (await import('./commands/status.js')).registerStatusCommand,
  doctor: async () => (await import('./commands/doctor.js')).registerDoctorCommand,
};

/** The first argument that is not an option: the command the user runs, if any. */
function commandName(args: readonly string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'));
}

/**
 * The program with the command `args` names registered, or every command when `args` names
 * none of them (so `--help` and an unknown command list them all).
 */
export async function buildProgram(args: readonly string[] = []): Promise<Command> {
  const program = new Command('printrelay')
    .description(
      'Print connector and release-station agent, with a built-in emulator of the cloud print service.',
    )
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride();
  const name = commandName(args);
  const wanted = name !== undefined && Object.hasOwn(COMMANDS, name) ? [name] : Object.keys(COMMANDS);
  const registrations = await Promise.all(
    wanted.map((command) => (COMMANDS[command] as () => Promise<Register>)()),
  );
  for (const register of registrations) register(program);
  return program;
}

/** Runs the program; errors become one clear message on stderr and a non-zero exit code. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await (await buildProgram(argv.slice(2))).parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    return EXIT_CODES.failure;
  }
  if (error instanceof DatabaseUnreadableError) {
    process.stderr.write(`error: ${error.message}\n`);
    return EXIT_CODES.databaseUnreadable;
  }
  if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message}\n`);
  if (process.env.PRINTRELAY_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return EXIT_CODES.failure;
}

await runCli(process.argv);
