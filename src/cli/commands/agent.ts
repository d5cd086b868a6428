/**
 * `printrelay agent --config FILE [--data-dir DIR]`: the connector daemon (`agent pair`, in
 * agent-pair.ts, pairs it first). The data directory is the flag, else `data_dir` of the file,
 * else the platform default (config/paths.ts). The first SIGTERM/SIGINT drains in-flight jobs
 * (agent.stop()), a second one or 30 s forces the exit. Under systemd (NOTIFY_SOCKET) it reports
 * readiness, status and the watchdog; an unreachable cloud at start-up is retried, not fatal.
 * SIGHUP reloads the file (printers, release stations, log level) and logs what changed; a file
 * without `version:` is migrated (with a backup) at start and at reload.
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type DestinationStream, multistream } from 'pino';
import type { AgentConfig } from '../../config/agent-schema.js';
import { type ConfigChanges, describeChanges } from '../../config/config-changes.js';
import { loadMigratedAgentConfig } from '../../config/config-migrations.js';
import { formatIssue, isConfigError } from '../../config/load-config.js';
import { errorMessage } from '../../lib/errors.js';
import { StatementProfile } from '../../lib/sqlite-profile.js';
import { EventLogStream } from '../../log/event-log.js';
import type { Logger } from '../../log/logger.js';
import type { Redactor } from '../../log/redaction.js';
import { connectServiceManager } from '../../service/sd-notify.js';
import { agentDataDir, registerAgentSecrets } from '../agent-settings.js';
import {
  addLogOptions,
  createCliLogger,
  type LogFlags,
  logMigration,
  logPrettyDefault,
  onReloadSignal,
  onShutdownSignals,
} from '../cli-runtime.js';
import { dumpProfileOnSignal } from '../sql-profile-dump.js';
import { registerAgentPairCommand } from './agent-pair.js';

interface AgentFlags extends LogFlags {
  config: string;
  dataDir?: string;
  eventLog?: boolean;
}

/** Registers `agent`. */
export function registerAgentCommand(program: Command): void {
  const command = program
    .command('agent')
    .description('run the print connector agent')
    .requiredOption('--config <file>', 'agent.yaml (see config/agent.example.yaml)')
    .option('--data-dir <dir>', 'state directory (default: data_dir of the file, else the platform default)')
    .option('--event-log', 'Windows: also write error lines to the Application event log (the service does)');
  addLogOptions(command, 'log.level of the config file, else info').action(async (flags: AgentFlags) =>
    runAgent(flags),
  );
  registerAgentPairCommand(command);
}

/** Every line to `stdout`, error lines also to the Windows event log. */
export function withEventLog(stdout: DestinationStream, events: DestinationStream = new EventLogStream()) {
  return multistream([
    { level: 'trace', stream: stdout },
    { level: 'error', stream: events },
  ]);
}

async function runAgent(flags: AgentFlags): Promise<void> {
  const { config, migration } = loadMigratedAgentConfig(flags.config);
  const { logger, redactor } = createCliLogger(flags, {
    level: config.log.level,
    ...logPrettyDefault(config.log.pretty),
    ...(flags.eventLog ? { destination: withEventLog(process.stdout) } : {}),
  });
  registerAgentSecrets(config, redactor);
  if (migration) logMigration(logger, migration);
  const dataDir = agentDataDir(flags.dataDir, config);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { Agent } = await import('../../agent/agent.js');
  const notifier = await connectServiceManager(process.env, logger);
  const statementProfile = sqlProfile(dataDir);
  const agent = new Agent({
    config,
    dataDir,
    logger,
    redactor,
    notifier,
    retryStartup: true,
    statementProfile,
  });
  const starting = new AbortController();
  // Every request of the first printer sync listens on this signal (one or more per printer, 16
  // printers at a time): many listeners are expected here, not a leak.
  setMaxListeners(0, starting.signal);
  let startup: Promise<void> = Promise.resolve();
  onShutdownSignals(
    async () => {
      starting.abort(new Error('stopped during start-up'));
      // A start cut short cleans up (database, lock file) before the process exits.
      await startup.catch(() => {});
      await agent.stop();
      notifier.close();
    },
    { logger, stoppedLine: 'stopped: the agent finished its in-flight jobs' },
  );
  let started = false;
  onReloadSignal(
    async () => {
      if (!started) {
        logger.warn('configuration reload ignored: the agent is still starting');
        return;
      }
      await reloadAgent(flags.config, agent, { logger, redactor });
    },
    { logger },
  );
  logger.info({ dataDir, printers: config.printers.length }, 'agent starting');
  startup = agent.start(starting.signal);
  try {
    await startup;
  } catch (error) {
    if (starting.signal.aborted) return; // stopped by a signal: the shutdown handler exits
    throw error;
  }
  started = true;
  logger.info('agent running');
}

/**
 * With PRINTRELAY_SQL_PROFILE=<file> (a measuring aid, docs/performance.md), the profile that
 * counts and times the database's statements, written to the file on each SIGUSR2.
 */
function sqlProfile(dataDir: string): StatementProfile | undefined {
  const file = process.env.PRINTRELAY_SQL_PROFILE;
  if (!file) return undefined;
  const profile = new StatementProfile();
  dumpProfileOnSignal(file, profile, join(dataDir, 'agent.db-wal'));
  return profile;
}

/** Reads the file again and applies it; a bad file keeps the running configuration. */
async function reloadAgent(
  file: string,
  agent: { reload(config: AgentConfig): Promise<ConfigChanges> },
  { logger, redactor }: { logger: Logger; redactor: Redactor },
): Promise<void> {
  let next: AgentConfig;
  try {
    const loaded = loadMigratedAgentConfig(file);
    next = loaded.config;
    if (loaded.migration) logMigration(logger, loaded.migration);
  } catch (error) {
    const issues = isConfigError(error) ? error.issues.map(formatIssue) : [errorMessage(error)];
    logger.error(
      { file, issues },
      `configuration reload failed; keeping the running configuration: ${issues.join('; ')}`,
    );
    return;
  }
  registerAgentSecrets(next, redactor);
  const changes = await agent.reload(next);
  logger.info({ file, changes }, `configuration reloaded: ${describeChanges(changes)}`);
}
