/**
 * Real peers for tests: finding their binaries, and the rule that under CI=true a missing peer
 * fails the run, while locally it skips with a printed reason.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';

/** Absolute path of a program on PATH (or in /usr/sbin), or undefined. */
export function which(program: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin']) {
    const candidate = `${dir}/${program}`;
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Whether the named programs are there. Under CI=true a missing one throws (the run fails);
 * otherwise it prints why the tests that need it are skipped and returns false.
 */
export function peersAvailable(...programs: string[]): boolean {
  const missing = programs.filter((p) => !which(p));
  if (missing.length === 0) return true;
  const message = `missing peer(s): ${missing.join(', ')} (install: apt-get install cups cups-ipp-utils socat dbus chromium curl systemd openssl snmpd snmp)`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI requires every peer`);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Whether a D-Bus system bus answers (a socket file alone can be left over from a dead daemon). */
function systemBusAnswers(): boolean {
  try {
    execFileSync(
      'dbus-send',
      [
        '--system',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.GetId',
      ],
      { stdio: 'ignore', timeout: 5000 },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the D-Bus system bus ippeveprinter needs, unless one answers already. A stale socket
 * and pid file from a daemon that died are removed first: dbus-daemon refuses to start over them.
 */
export function ensureSystemBus(): void {
  if (systemBusAnswers()) return;
  rmSync('/run/dbus/system_bus_socket', { force: true });
  rmSync('/run/dbus/pid', { force: true });
  mkdirSync('/run/dbus', { recursive: true });
  execFileSync('dbus-daemon', ['--system', '--fork']);
  if (!systemBusAnswers()) throw new Error('the D-Bus system bus did not start; ippeveprinter needs it');
}
