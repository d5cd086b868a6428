/**
 * Where a running agent's control API answers, for `status` and `doctor`: --url, else the
 * `control` section of the agent's file (--config, else the installed default path when it
 * exists), else the built-in default. Also the GET used by both commands.
 */
import { existsSync } from 'node:fs';
import type { AgentConfig } from '../config/agent-schema.js';
import { loadAgentConfig } from '../config/load-config.js';
import { defaultConfigPath } from '../config/paths.js';
import { errorMessage } from '../lib/errors.js';
import { CliError } from './cli-runtime.js';

/** The address to ask and where it came from (for error messages). */
export interface ControlAddress {
  url: string;
  source: string;
}

/** The default of control.bind/control.port in agent.yaml. */
export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:9631';

/** The base URL of the control API for the given flags. Reads the file when one applies. */
export function controlAddress(
  flags: { url?: string; config?: string },
  env: Record<string, string | undefined> = process.env,
): ControlAddress {
  if (flags.url) return { url: flags.url.replace(/\/+$/, ''), source: '--url' };
  const file = flags.config ?? (existsSync(defaultConfigPath()) ? defaultConfigPath() : undefined);
  if (!file) return { url: DEFAULT_CONTROL_URL, source: `the default (no ${defaultConfigPath()})` };
  const config = loadAgentConfig(file, { env });
  return { url: urlOf(config.control), source: `control.bind/control.port of ${file}` };
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
    throw new CliError(
      `no agent answers at ${address.url} (${cause}); the address comes from ${address.source}. ` +
        'Is the agent running? Point to it with --config /etc/printrelay/agent.yaml (its control.bind and control.port) ' +
        'or --url http://HOST:PORT, and check that control.enabled is not false.',
    );
  }
}
