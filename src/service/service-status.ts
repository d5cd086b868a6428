/**
 * `printrelay service status --json`: the service's state as data instead of the manager's own
 * text. Each manager has a query (a command whose output is machine-readable: `systemctl show`
 * with chosen properties, WinSW's one-word `status`) and a pure parser of its output.
 */
import { win32 } from 'node:path';
import type { ServiceManagerName } from './service-managers.js';
import { SYSTEMD_UNIT } from './systemd-service.js';
import { serviceDir, WINDOWS_SERVICE_ID, type WindowsServiceSettings } from './winsw-service.js';

/** The state of the agent's service, the same shape under every manager. */
export interface ServiceState {
  manager: ServiceManagerName;
  service: string;
  /** The manager knows the service (unit file present / service created). */
  installed: boolean;
  /** The agent runs. */
  running: boolean;
  /** The manager's own words: systemd's ActiveState/SubState, WinSW's answer. */
  state: string;
  /** Starts with the machine (systemd: enabled; WinSW services are created Automatic). */
  enabled?: boolean;
  /** The agent's process id while it runs (systemd only). */
  pid?: number;
}

/** The command that asks the manager, and how to read its answer. */
export interface StatusQuery {
  command: string;
  args: string[];
  parse(stdout: string): ServiceState;
  /** The answer when the command itself is not there (WinSW's host is copied in by install). */
  absent?: ServiceState;
}

const SYSTEMD_PROPERTIES = ['LoadState', 'ActiveState', 'SubState', 'UnitFileState', 'MainPID'];

/** Reads `systemctl show --property=...` output (KEY=value lines). Pure. */
export function parseSystemdShow(stdout: string): ServiceState {
  const values = new Map(
    stdout
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()] as const),
  );
  const missing = SYSTEMD_PROPERTIES.filter((p) => !values.has(p));
  if (missing.length > 0) throw new Error(`systemctl show: no ${missing.join(', ')} in its answer`);
  const active = values.get('ActiveState') as string;
  const pid = Number(values.get('MainPID'));
  return {
    manager: 'systemd',
    service: SYSTEMD_UNIT,
    installed: values.get('LoadState') === 'loaded',
    running: active === 'active' || active === 'reloading',
    state: `${active}/${values.get('SubState')}`,
    enabled: values.get('UnitFileState') === 'enabled',
    ...(pid > 0 ? { pid } : {}),
  };
}

/** Reads WinSW's `status` answer: Started, Stopped or NonExistent (other words are kept as said). Pure. */
export function parseWinswStatus(stdout: string): ServiceState {
  const state = stdout.trim().split(/\r?\n/).at(-1)?.trim() ?? '';
  if (state === '') throw new Error('WinSW status: empty answer');
  return {
    manager: 'winsw',
    service: WINDOWS_SERVICE_ID,
    installed: state !== 'NonExistent',
    running: state === 'Started',
    state,
    ...(state === 'NonExistent' ? {} : { enabled: true }),
  };
}

/** The status query of a manager. Pure. */
export function statusQuery(manager: ServiceManagerName, windows: () => WindowsServiceSettings): StatusQuery {
  if (manager === 'systemd') {
    return {
      command: 'systemctl',
      args: ['show', `--property=${SYSTEMD_PROPERTIES.join(',')}`, SYSTEMD_UNIT],
      parse: parseSystemdShow,
    };
  }
  const exe = win32.join(serviceDir(windows()), `${WINDOWS_SERVICE_ID}.exe`);
  return { command: exe, args: ['status'], parse: parseWinswStatus, absent: parseWinswStatus('NonExistent') };
}
