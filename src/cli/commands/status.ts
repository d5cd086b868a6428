/**
 * `printrelay status [--config FILE | --url URL] [--json]`: what a running agent is doing now,
 * from its control API (/status). Exit 0 when the agent is ready, 2 when it answers but is not
 * ready, 1 when no agent answers or another agent than the one of --config (or --data-dir)
 * answers: its data directory on /status must be that configuration's.
 */
import type { Command } from 'commander';
import { type AgentStatus, readiness } from '../../agent/control/agent-status.js';
import { CliError } from '../cli-runtime.js';
import { controlAddress, getControl, verifyAgent } from '../control-address.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatStatus } from '../status-report.js';

interface StatusFlags {
  config?: string;
  url?: string;
  dataDir?: string;
  json?: boolean;
}

/** Registers `status`. */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('show what the running agent is doing (from its local control API)')
    .option('--config <file>', 'agent.yaml whose control section says where the agent listens')
    .option('--url <url>', 'control API base URL (default http://127.0.0.1:9631)')
    .option(
      '--data-dir <dir>',
      "the agent's data directory (default: data_dir of the file); the agent that answers must use it",
    )
    .option('--json', 'print the status document as JSON')
    .action(async (flags: StatusFlags) => {
      process.exitCode = await runStatus(flags, (text) => process.stdout.write(text));
    });
}

/** Fetches and prints the status; returns the exit code. */
export async function runStatus(flags: StatusFlags, write: (text: string) => void): Promise<number> {
  const address = controlAddress(flags);
  const answer = await getControl(address, '/status');
  if (answer.status !== 200) {
    throw new CliError(`${address.url}/status answered HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
  const status = JSON.parse(answer.text) as AgentStatus;
  await verifyAgent(address, status);
  if (flags.json) write(`${JSON.stringify(status, null, 2)}\n`);
  else write(`${formatStatus(status, address.url).join('\n')}\n`);
  return readiness(status).ready ? EXIT_CODES.ok : EXIT_CODES.notReady;
}
