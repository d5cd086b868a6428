/**
 * `printrelay service install|uninstall|start|stop|status [--dry-run]`: the agent as a service
 * of the machine. On Windows it installs a WinSW-hosted service (service/winsw-service.ts) with
 * rotating logs in %ProgramData%\PrintRelay\logs; on Linux it drives the unit the Debian package
 * installed, with systemctl. `--dry-run` prints the steps (and the service definition) only.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { defaultDataDir } from '../../config/paths.js';
import { packageRoot } from '../../lib/package-root.js';
import {
  defaultServiceManager,
  SERVICE_MANAGERS,
  type ServiceManagerName,
  servicePlan,
  windowsSettings,
} from '../../service/service-managers.js';
import {
  formatServicePlan,
  runServicePlan,
  SERVICE_ACTIONS,
  type ServiceAction,
} from '../../service/service-plan.js';
import { type ServiceState, type StatusQuery, statusQuery } from '../../service/service-status.js';
import { CliError } from '../cli-runtime.js';
import { EXIT_CODES } from '../exit-codes.js';

interface ServiceFlags {
  manager?: string;
  dryRun?: boolean;
  json?: boolean;
  config?: string;
  home?: string;
  node?: string;
  appDir?: string;
}

const execFileAsync = promisify(execFile);

/** This installation's root (bin/printrelay.js is under it). */
const APP_DIR = packageRoot();

/** Registers `service`. */
export function registerServiceCommand(program: Command): void {
  program
    .command('service')
    .description(
      'install, uninstall, start, stop or query the agent as a service (Windows: WinSW; Linux: systemd)',
    )
    .argument('<action>', SERVICE_ACTIONS.join(', '))
    .option('--manager <name>', `${SERVICE_MANAGERS.join(' or ')} (default: this platform's)`)
    .option('--dry-run', 'print the steps and the service definition instead of carrying them out')
    .option('--json', 'status: print { manager, service, installed, running, state, enabled, pid } as JSON')
    .option('--config <file>', 'Windows: agent.yaml (default: %ProgramData%\\PrintRelay\\agent.yaml)')
    .option('--home <dir>', 'Windows: state, logs and service directory (default: %ProgramData%\\PrintRelay)')
    .option('--node <exe>', 'Windows: node.exe to run the agent with (default: the one running this)')
    .option('--app-dir <dir>', 'Windows: the PrintRelay installation (default: this one)')
    .action(async (action: string, flags: ServiceFlags) => runService(action, flags));
}

/** Runs a status query and reads its answer; a WinSW host that was never copied in means not installed. */
async function queryServiceState(query: StatusQuery): Promise<ServiceState> {
  try {
    const { stdout } = await execFileAsync(query.command, query.args, { encoding: 'utf8' });
    return query.parse(stdout);
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string; code?: string | number };
    if (e.code === 'ENOENT' && query.absent) return query.absent;
    const detail = (e.stderr ?? '').trim() || e.message;
    throw new CliError(`${[query.command, ...query.args].join(' ')} failed: ${detail}`);
  }
}

async function runService(action: string, flags: ServiceFlags): Promise<void> {
  if (!(SERVICE_ACTIONS as readonly string[]).includes(action)) {
    throw new CliError(`service: action must be one of ${SERVICE_ACTIONS.join(', ')}, got "${action}"`);
  }
  const manager = flags.manager ?? defaultServiceManager();
  if (!(SERVICE_MANAGERS as readonly string[]).includes(manager)) {
    throw new CliError(`--manager: must be one of ${SERVICE_MANAGERS.join(', ')}, got "${manager}"`);
  }
  const home = flags.home ?? defaultDataDir('win32');
  const overrides = {
    ...(flags.config ? { config: flags.config } : {}),
    ...(flags.node ? { node: flags.node } : {}),
    ...(flags.appDir ? { appDir: flags.appDir } : {}),
  };
  const windows = () => windowsSettings(overrides, APP_DIR, home);
  if (flags.json) {
    if (action !== 'status') throw new CliError(`--json: only with status, not with ${action}`);
    const state = await queryServiceState(statusQuery(manager as ServiceManagerName, windows));
    process.stdout.write(`${JSON.stringify(state, null, 2)}\n`);
    process.exitCode = state.running ? EXIT_CODES.ok : EXIT_CODES.serviceNotRunning;
    return;
  }
  const plan = servicePlan(manager as ServiceManagerName, action as ServiceAction, windows);
  if (flags.dryRun) {
    process.stdout.write(formatServicePlan(plan));
    return;
  }
  const code = await runServicePlan(plan);
  if (action === 'status') process.exitCode = code ?? 1;
}
