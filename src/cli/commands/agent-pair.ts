/**
 * `printrelay agent pair --config FILE [--data-dir DIR]`: pairs the connector with the cloud by
 * the pairing-code grant. Prints the code and the page where a person signs in to bind it,
 * polls until they did (backing off when told to slow down), and stores the tokens in
 * `<dataDir>/tokens.json` (mode 0600); `printrelay agent` then runs with them and needs no
 * username or password. Ctrl-C stops the wait.
 */
import { mkdirSync } from 'node:fs';
import type { Command } from 'commander';
import { readCaFile } from '../../client/cloud-trust.js';
import { PairingError, type PairingCode, pairConnector } from '../../client/pairing-client.js';
import { tokensPath } from '../../client/token-store.js';
import type { AgentConfig } from '../../config/agent-schema.js';
import { loadAgentConfig } from '../../config/load-config.js';
import { systemClock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import { addLogOptions, CliError, createCliLogger, type LogFlags } from '../cli-runtime.js';
import { agentDataDir, registerAgentSecrets } from '../agent-settings.js';
import { EXIT_CODES } from '../exit-codes.js';

interface PairFlags extends LogFlags {
  config?: string;
  dataDir?: string;
}

/** Registers `pair` below the `agent` command; --config and --data-dir may stand on either. */
export function registerAgentPairCommand(agent: Command): void {
  const command = agent
    .command('pair')
    .description('pair this agent with the cloud (pairing code), storing its tokens in the data directory')
    .option('--config <file>', 'agent.yaml (see config/agent.example.yaml)')
    .option('--data-dir <dir>', 'state directory (default: data_dir of the file, else the platform default)');
  addLogOptions(command, 'warn').action(async (_flags: PairFlags, cmd: Command) =>
    runPair(cmd.optsWithGlobals<PairFlags>()),
  );
}

async function runPair(flags: PairFlags): Promise<void> {
  if (!flags.config) throw new CliError('agent pair: --config <file> is required');
  const config = loadAgentConfig(flags.config);
  const { logger, redactor } = createCliLogger(flags, { level: flags.logLevel ?? 'warn' });
  registerAgentSecrets(config, redactor);
  const dataDir = agentDataDir(flags.dataDir, config);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = tokensPath(dataDir);
  await pairUntilDone(config, file, logger);
  process.stdout.write(`Paired. Tokens stored in ${file} (readable by this user only).\n`);
  process.stdout.write(`Start the agent with: printrelay agent --config ${flags.config}\n`);
  if (config.cloud.username || config.cloud.password) {
    process.stdout.write(
      'Note: cloud.username/password are still configured; the agent uses the stored tokens and signs in with the password only when they are refused. Remove them from the file.\n',
    );
  }
}

/** Runs the pairing; SIGINT/SIGTERM end the wait with exit code 130. */
async function pairUntilDone(config: AgentConfig, file: string, logger: Logger): Promise<void> {
  const abort = new AbortController();
  const onSignal = () => abort.abort(new CliError('pairing cancelled', EXIT_CODES.interrupted));
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    await pairConnector({
      settings: {
        authUrl: config.cloud.url,
        clientId: config.cloud.client_id,
        clientSecret: config.cloud.client_secret,
        timeoutMs: config.cloud.request_timeout_s * 1000,
        ...(config.cloud.ca_file ? { ca: readCaFile(config.cloud.ca_file, 'cloud.ca_file') } : {}),
      },
      tokensFile: file,
      clock: systemClock,
      logger,
      signal: abort.signal,
      onCode: showCode,
    });
  } catch (error) {
    if (error instanceof PairingError) throw new CliError(`pairing failed: ${error.message}`);
    throw error;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

function showCode(code: PairingCode): void {
  const minutes = code.expires_in ? ` within ${Math.round(code.expires_in / 60)} minutes` : '';
  process.stdout.write(
    [
      `Pairing code: ${code.pairing_code}`,
      `Open this page in a browser, sign in${minutes} and check that it shows the same code:`,
      `  ${code.auth_url}`,
      'Waiting for the sign-in (Ctrl-C to stop)...',
      '',
    ].join('\n'),
  );
}
