/**
 * Where a running agent's control API answers, for `status` and `doctor`: --url, else the
 * `control` section of the agent's file (--config, else the installed default path when it
 * exists), else the built-in default. Also the GET used by both commands, and the check that
 * the agent which answered is the one of that configuration (its data directory).
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentConfig } from '../config/agent-schema.js';
import { loadAgentConfig } from '../config/load-config.js';
import { defaultConfigPath } from '../config/paths.js';
import { errorMessage } from '../lib/errors.js';
import { type LockRecord, readLiveLock } from '../store/data-dir-lock.js';
import { agentDataDir } from './agent-settings.js';
import { CliError } from './cli-runtime.js';

/** The address to ask and where it came from (for error messages). */
export interface ControlAddress {
  url: string;
  source: string;
  /** The data directory of the agent meant (from the file or --data-dir): the one that must answer. */
  dataDir?: string;
}

/** The default of control.bind/control.port in agent.yaml. */
export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:9631';

/** The base URL of the control API for the given flags. Reads the file when one applies. */
export function controlAddress(
  flags: { url?: string; config?: string; dataDir?: string },
  env: Record<string, string | undefined> = process.env,
): ControlAddress {
  const dataDir = flags.dataDir ? { dataDir: resolve(flags.dataDir) } : {};
  if (flags.url) return { url: flags.url.replace(/\/+$/, ''), source: '--url', ...dataDir };
  const file = flags.config ?? (existsSync(defaultConfigPath()) ? defaultConfigPath() : undefined);
  if (!file)
    return { url: DEFAULT_CONTROL_URL, source: `the default (no ${defaultConfigPath()})`, ...dataDir };
  const config = loadAgentConfig(file, { env });
  return {
    url: urlOf(config.control),
    source: `control.bind/control.port of ${file}`,
    dataDir: agentDataDir(flags.dataDir, config),
  };
}

/**
 * Checks that the agent which answered (its /status `dataDir`) is the one meant by `address`;
 * a CliError naming both data directories, and what the meant agent's lock file says about its
 * control API, when another agent answered. Nothing to check without a meant data directory or
 * from an agent too old to say its own.
 */
export async function verifyAgent(
  address: ControlAddress,
  answered: { dataDir?: string; pid: number },
): Promise<void> {
  if (!address.dataDir || !answered.dataDir) return;
  if (samePath(address.dataDir, answered.dataDir)) return;
  throw new CliError(
    `the agent answering at ${address.url} (pid ${answered.pid}, data directory ${answered.dataDir}) ` +
      `is not the agent of ${address.source} (data directory ${address.dataDir})` +
      `${await meantAgent(address.dataDir)}. Give each agent its own control.port ` +
      '(printrelay demo picks a free one and prints it), or ask the right one with --url.',
  );
}

/** What the lock file of `dataDir` says about its agent, as a clause for error messages. */
async function meantAgent(dataDir: string): Promise<string> {
  const lock: LockRecord | undefined = await readLiveLock(dataDir).catch(() => undefined);
  if (!lock) return `; no agent runs on ${dataDir}`;
  if (lock.control?.error)
    return `; that agent (pid ${lock.pid}) runs but could not open its control address: ${lock.control.error}`;
  if (lock.control?.url) return `; that agent (pid ${lock.pid}) listens at ${lock.control.url}`;
  return `; that agent (pid ${lock.pid}) runs`;
}

function samePath(a: string, b: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  return real(a) === real(b);
}

/** The URL a local client uses for a bind address (a wildcard bind is asked on loopback). Pure. */
export function urlOf(control: Pick<AgentConfig['control'], 'bind' | 'port'>): string {
  let host = control.bind;
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${control.port}`;
}

/** GETs a control API path; a missing agent becomes a CliError saying what was tried and how to fix it. */
export async function getControl(
  address: ControlAddress,
  path: string,
  timeoutMs = 3000,
): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${address.url}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? errorMessage(error);
    const meant = address.dataDir ? await meantAgent(address.dataDir) : '';
    throw new CliError(
      `no agent answers at ${address.url} (${cause}); the address comes from ${address.source}${meant}. ` +
        'Is the agent running? Point to it with --config /etc/printrelay/agent.yaml (its control.bind and control.port) ' +
        'or --url http://HOST:PORT, and check that control.enabled is not false.',
    );
  }
}
