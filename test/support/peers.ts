/**
 * Real peers for tests: finding their binaries, and the rule that under CI=true a missing peer
 * fails the run, while locally it skips with a printed reason.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  const message = `missing peer(s): ${missing.join(', ')} (install: apt-get install cups cups-ipp-utils socat dbus chromium)`;
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

/** Starts the D-Bus system bus ippeveprinter needs, unless it runs already. */
export function ensureSystemBus(): void {
  if (existsSync('/run/dbus/system_bus_socket')) return;
  execFileSync('mkdir', ['-p', '/run/dbus']);
  execFileSync('dbus-daemon', ['--system', '--fork']);
}
