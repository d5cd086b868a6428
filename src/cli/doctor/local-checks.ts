/**
 * Doctor checks of this machine: the configuration file is valid (and whether it will be
 * migrated), the data directory is writable and private, CUPS answers (when the file uses it),
 * and whether an agent already runs here (its control API's readiness).
 */
import { accessSync, constants, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readiness, type AgentStatus } from '../../agent/control/agent-status.js';
import type { AgentConfig } from '../../config/agent-schema.js';
import { migrateAgentText } from '../../config/config-migrations.js';
import { checkConfig } from '../../config/check-config.js';
import { formatIssue } from '../../config/load-config.js';
import { errorMessage } from '../../lib/errors.js';
import { cupsGetPrinters } from '../../printing/cups/cups-printers.js';
import { parseCupsUri } from '../../printing/cups/cups-uri.js';
import { readLiveLock } from '../../store/data-dir-lock.js';
import { type ControlAddress, getControl, verifyAgent } from '../control-address.js';
import { type Check, type CheckResult, fail, ok, skip, warn } from './doctor-check.js';

/** The config check: every issue with its line, or valid (noting a pending migration). */
export function configCheck(
  file: string,
  text: string | undefined,
  env: Record<string, string | undefined>,
): CheckResult {
  if (text === undefined) {
    return fail(
      'config',
      `${file} cannot be read`,
      'pass --config with the agent’s file, readable by this user',
    );
  }
  const issues = checkConfig('agent', text, file, { env });
  if (issues.length > 0) {
    const shown = issues.slice(0, 5).map(formatIssue).join('; ');
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    return fail(
      'config',
      `${issues.length} problem(s): ${shown}${more}`,
      `fix the lines named; check again with printrelay config validate ${file}`,
    );
  }
  try {
    const migration = migrateAgentText(text, file);
    if (migration)
      return ok(
        'config',
        `${file} is valid (version ${migration.from}: the agent migrates it to ${migration.to} at start, with a backup)`,
      );
  } catch (error) {
    return fail('config', errorMessage(error), 'use a file written for this PrintRelay version');
  }
  return ok('config', `${file} is valid`);
}

/** The data directory: exists (or can be made), writable, not readable by others. */
export function dataDirCheck(dir: string): CheckResult {
  const fix = `create it for the agent's user: install -d -m 0700 -o printrelay ${dir}`;
  let exists = true;
  try {
    if (!statSync(dir).isDirectory()) return fail('data dir', `${dir} is not a directory`, fix);
  } catch {
    exists = false;
  }
  if (!exists) {
    try {
      accessSync(dirname(dir), constants.W_OK);
      return warn('data dir', `${dir} does not exist yet (the agent creates it, mode 0700)`, fix);
    } catch {
      return fail('data dir', `${dir} does not exist and ${dirname(dir)} is not writable by this user`, fix);
    }
  }
  const probe = join(dir, `.doctor-${process.pid}`);
  try {
    writeFileSync(probe, 'probe');
    rmSync(probe);
  } catch (error) {
    return fail(
      'data dir',
      `${dir} is not writable by this user (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})`,
      fix,
    );
  }
  const mode = statSync(dir).mode & 0o777;
  if (mode & 0o077) {
    return warn(
      'data dir',
      `${dir} is writable, but its mode ${mode.toString(8)} lets others in (tokens live there)`,
      `chmod 0700 ${dir}`,
    );
  }
  return ok('data dir', `${dir} is writable, mode ${mode.toString(8).padStart(4, '0')}`);
}

/** CUPS servers the file uses: cups:// printers and discovery.cups. */
export function cupsServers(config: AgentConfig, env: Record<string, string | undefined>): string[] {
  const servers = new Set<string>();
  for (const p of config.printers) {
    if (!p.uri.startsWith('cups://')) continue;
    const target = parseCupsUri(p.uri);
    servers.add(`${target.host}:${target.port}`);
  }
  if (config.discovery.cups) servers.add(config.discovery.cups_server ?? env.CUPS_SERVER ?? 'localhost:631');
  return [...servers].map((s) => (/:\d+$/.test(s) ? s : `${s}:631`));
}

/** One check per CUPS server in use: it answers CUPS-Get-Printers; the queues are listed. */
export function cupsCheck(servers: string[]): Check {
  return {
    name: 'cups',
    async run(signal) {
      if (servers.length === 0) return skip('cups', 'no cups:// printer and no CUPS discovery configured');
      const results: CheckResult[] = [];
      for (const server of servers) {
        const [, host = 'localhost', port = '631'] = /^\[?([^\]]*?)\]?:(\d+)$/.exec(server) ?? [];
        try {
          const queues = await cupsGetPrinters({ host, port: Number(port) }, signal, 5000);
          const names = queues.map((q) => String(q['printer-name'] ?? '?'));
          results.push(
            ok(
              'cups',
              `CUPS at ${server} answers: ${names.length} queue(s)${names.length ? `: ${names.join(', ')}` : ''}`,
            ),
          );
        } catch (error) {
          results.push(
            fail(
              'cups',
              `CUPS at ${server} does not answer (${errorMessage(error)})`,
              'start it: systemctl enable --now cups (or set cups_server / the cups:// URI server)',
            ),
          );
        }
      }
      return results;
    },
  };
}

/**
 * Whether an agent already runs with this file's control address, and if so whether it is the
 * agent of this data directory (not another one on the same port) and ready. When nothing
 * answers but the data directory's agent runs, its lock file says why its control API is not
 * listening: a failure.
 */
export function agentCheck(address: ControlAddress | undefined): Check {
  return {
    name: 'agent',
    async run() {
      if (!address) return skip('agent', 'the control API is disabled in the file (control.enabled: false)');
      let status: AgentStatus;
      try {
        status = JSON.parse((await getControl(address, '/status', 2000)).text) as AgentStatus;
      } catch {
        const lock = address.dataDir ? await readLiveLock(address.dataDir).catch(() => undefined) : undefined;
        if (lock?.control?.error)
          return fail(
            'agent',
            `the agent of ${address.dataDir} (pid ${lock.pid}) runs but its control API does not: ${lock.control.error}`,
            'free the port or set another control.port in the file, then restart the agent',
          );
        return skip(
          'agent',
          `no agent answers at ${address.url} (fine before the install; after it: systemctl status printrelay-agent)${lock ? `; the agent of ${address.dataDir} runs as pid ${lock.pid}` : ''}`,
        );
      }
      try {
        await verifyAgent(address, status);
      } catch (error) {
        return fail(
          'agent',
          errorMessage(error),
          'give each agent on this machine its own control.port (and data directory)',
        );
      }
      const ready = readiness(status);
      if (ready.ready) return ok('agent', `running (pid ${status.pid}) and ready at ${address.url}`);
      return warn(
        'agent',
        `running (pid ${status.pid}) but not ready: ${ready.reasons.join('; ')}`,
        'see printrelay status and the checks below',
      );
    },
  };
}
