/**
 * The printrelay command: builds the commander program (one file per command under
 * commands/, each registered here with one line) and runs it. bin/printrelay.js imports this
 * module, so importing it runs the CLI with process.argv.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { packageVersion } from '../lib/package-version.js';
import { DatabaseUnreadableError, EXIT_DATABASE_UNREADABLE } from '../lib/database-unreadable.js';
import { CliError } from './cli-runtime.js';
import { registerAgentCommand } from './commands/agent.js';
import { registerConfigCommand } from './commands/config.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerPrintCommand } from './commands/print.js';
import { registerPrintersCommand } from './commands/printers.js';
import { registerCardCommand } from './commands/card.js';
import { registerServiceCommand } from './commands/service.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSwipeCommand } from './commands/swipe.js';

/** The program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('printrelay')
    .description(
      'Print connector and release-station agent, with a built-in emulator of the cloud print service.',
    )
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride();
  registerDemoCommand(program);
  registerEmulatorCommand(program);
  registerAgentCommand(program);
  registerPrintCommand(program);
  registerConfigCommand(program);
  registerPrintersCommand(program);
  registerCardCommand(program);
  registerSwipeCommand(program);
  registerServiceCommand(program);
  registerStatusCommand(program);
  registerDoctorCommand(program);
  return program;
}

/** Runs the program; errors become one clear message on stderr and a non-zero exit code. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  if (error instanceof DatabaseUnreadableError) {
    process.stderr.write(`error: ${error.message}\n`);
    return EXIT_DATABASE_UNREADABLE;
  }
  if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message}\n`);
  if (process.env.PRINTRELAY_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return 1;
}

await runCli(process.argv);
