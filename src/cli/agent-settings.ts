/**
 * What `agent` and `agent pair` both derive from an agent config: the data directory and the
 * secrets the log redactor must know.
 */
import { resolve } from 'node:path';
import type { AgentConfig } from '../config/agent-schema.js';
import { defaultDataDir } from '../config/paths.js';

/** The data directory the agent uses: flag, then file, then platform default. */
export function agentDataDir(flag: string | undefined, config: AgentConfig): string {
  return resolve(flag ?? config.data_dir ?? defaultDataDir());
}

/** Registers the configured secrets with the log redactor. */
export function registerAgentSecrets(
  config: AgentConfig,
  redactor: { add(secret: string | undefined): void },
): void {
  redactor.add(config.cloud.client_secret);
  redactor.add(config.cloud.password);
}
