/**
 * Where PrintRelay keeps its state when no data directory is configured. The platform is a
 * parameter so the choice is testable anywhere; nothing here creates directories.
 */
import { join, win32 } from 'node:path';

/**
 * The default data directory of the agent: `/var/lib/printrelay` on Linux and other Unix
 * systems, `%ProgramData%\PrintRelay` on Windows (C:\ProgramData when the variable is unset).
 * Pure: the caller creates the directory.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: Record<string, string | undefined> = process.env,
): string {
  if (platform === 'win32') {
    return win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'PrintRelay');
  }
  return join('/', 'var', 'lib', 'printrelay');
}

/** The default data directory of `printrelay demo`, relative to the working directory. */
export const DEMO_DATA_DIR = '.printrelay-demo';

/**
 * Where an installed agent's configuration file lives: `/etc/printrelay/agent.yaml` on Linux,
 * `%ProgramData%\PrintRelay\agent.yaml` on Windows. `status` and `doctor` read it when no
 * --config is given. Pure.
 */
export function defaultConfigPath(
  platform: NodeJS.Platform = process.platform,
  env: Record<string, string | undefined> = process.env,
): string {
  if (platform === 'win32') return win32.join(defaultDataDir(platform, env), 'agent.yaml');
  return join('/', 'etc', 'printrelay', 'agent.yaml');
}
