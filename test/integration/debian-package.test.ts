/**
 * The Debian package, for real: scripts/build-deb.sh builds it, `dpkg -i` installs it on this
 * machine (root needed: CI runs as root; locally the install test skips with its reason unless
 * CI=true), the installed `printrelay` answers --version and validates its config, the installed
 * unit passes systemd-analyze, the installed agent runs as the printrelay user against the
 * emulator and tells the notify socket READY=1, an upgrade keeps the edited config, `dpkg -r`
 * keeps config and state, and `dpkg -P` deletes them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotifySocket } from '../support/notify-socket.js';
import { peersAvailable, which } from '../support/peers.js';
import { CliProcess, startEmulatorProcess } from './cli-process.js';

const repo = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;
const hostArch = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'printrelay-deb-'));
chmodSync(dir, 0o755); // the printrelay user reaches the notify socket in here
const cleanups: (() => Promise<unknown> | unknown)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Why the install test cannot run here, or undefined when it can. */
function installBlocker(): string | undefined {
  if (process.getuid?.() !== 0) return 'dpkg -i needs root';
  if (process.env.CI !== 'true') return 'it installs a system package on this machine; set CI=true to run it';
  return undefined;
}

function run(command: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', cwd: repo, timeout: 600_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ok(command: string, args: string[]): string {
  const result = run(command, args);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return result.stdout;
}

/** One field of the installed package's dpkg record. */
function dpkgField(name: string): string {
  return ok('dpkg-query', ['-W', `-f=\${${name}}`, 'printrelay']);
}

/** The same package with another version number: an upgrade without a second build. */
function repack(deb: string, newVersion: string): string {
  const tree = join(dir, 'repack');
  ok('dpkg-deb', ['-R', deb, tree]);
  const control = join(tree, 'DEBIAN', 'control');
  writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${newVersion}`));
  const out = join(dir, `printrelay_${newVersion}_${hostArch}.deb`);
  ok('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', tree, out]);
  return out;
}

describe('scripts/build-deb.sh', () => {
  it('refuses to package natives compiled for another architecture, naming the file', () => {
    const other = hostArch === 'amd64' ? 'arm64' : 'amd64';
    const result = run('scripts/build-deb.sh', ['--arch', other, '--out', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^build-deb: node_modules/\\S+\\.node is compiled for ELF machine \\d+, not for ${other} \\(\\d+\\)\\.\\n` +
          `build-deb: native modules are compiled by npm ci for the machine it runs on: build the package for ${other} on an ${other} machine \\(or container\\), after npm ci there\\.\\n$`,
      ),
    );
  });
});

const blocker = installBlocker();
if (blocker) console.warn(`skipping the .deb install test: ${blocker}`);
const hasPeers = !blocker && peersAvailable('dpkg-deb', 'systemd-analyze', 'socat', 'setpriv');

describe.skipIf(blocker !== undefined || !hasPeers)('the .deb on this machine', () => {
  it('installs, runs, upgrades keeping the config, removes keeping state, and purges', async () => {
    if (run('dpkg-query', ['-W', 'printrelay']).code === 0) ok('dpkg', ['-P', 'printrelay']);
    // The package keeps its system user on purge, as Debian does; the test removes the user it
    // made, so a CI machine ends as it began.
    if (run('id', ['-u', 'printrelay']).code !== 0) {
      cleanups.push(() => {
        run('userdel', ['printrelay']);
        run('groupdel', ['printrelay']);
      });
    }
    const built = ok('scripts/build-deb.sh', ['--fast', '--out', dir]).trim().split('\n').at(-1) as string;
    expect(built).toBe(join(dir, `printrelay_${version}_${hostArch}.deb`));
    ok('dpkg', ['-i', built]);
    cleanups.push(() => run('dpkg', ['-P', 'printrelay']));

    expect(ok('printrelay', ['--version'])).toBe(`${version}\n`);
    expect(ok('printrelay', ['config', 'validate', '/etc/printrelay/agent.yaml'])).toBe('valid\n');
    expect(ok('id', ['-nG', 'printrelay']).trim().split(' ').sort()).toEqual([
      'dialout',
      'lp',
      'plugdev',
      'printrelay',
    ]);
    expect(ok('stat', ['-c', '%U:%G %a', '/var/lib/printrelay'])).toBe('printrelay:printrelay 700\n');
    expect(ok('stat', ['-c', '%U:%G %a', '/etc/printrelay/agent.yaml'])).toBe('root:printrelay 640\n');
    expect(dpkgField('Conffiles')).toMatch(/^ \/etc\/printrelay\/agent\.yaml [0-9a-f]{32}$/);
    expect(readFileSync('/usr/bin/printrelay').subarray(0, 19).toString()).toBe('#!/usr/bin/env node');

    const unit = '/lib/systemd/system/printrelay-agent.service';
    expect(run('systemd-analyze', ['verify', unit])).toEqual({ code: 0, stdout: '', stderr: '' });
    const security = run('systemd-analyze', ['security', '--offline=true', unit]);
    expect(security.code).toBe(0);
    expect(security.stdout).toContain('→ Overall exposure level for printrelay-agent.service: 1.5 OK');

    await runInstalledAgent();

    appendFileSync('/etc/printrelay/agent.yaml', '# edited on site\n');
    ok('dpkg', ['-i', repack(built, `${version}+1`)]);
    expect(dpkgField('Version')).toBe(`${version}+1`);
    expect(readFileSync('/etc/printrelay/agent.yaml', 'utf8')).toMatch(/# edited on site\n$/);
    expect(existsSync('/var/lib/printrelay/tokens.json')).toBe(true);

    ok('dpkg', ['-r', 'printrelay']);
    for (const gone of ['/opt/printrelay', '/usr/bin/printrelay', unit]) expect(existsSync(gone)).toBe(false);
    expect(readFileSync('/etc/printrelay/agent.yaml', 'utf8')).toMatch(/# edited on site\n$/);
    expect(existsSync('/var/lib/printrelay/tokens.json')).toBe(true);
    expect(existsSync('/var/lib/printrelay/agent.db')).toBe(true);
    expect(dpkgField('Status')).toBe('deinstall ok config-files');

    ok('dpkg', ['-P', 'printrelay']);
    expect(existsSync('/etc/printrelay')).toBe(false);
    expect(existsSync('/var/lib/printrelay')).toBe(false);
    expect(run('dpkg-query', ['-W', 'printrelay']).code).toBe(1);
    expect(ok('id', ['-un', 'printrelay'])).toBe('printrelay\n'); // system users stay
  }, 600_000);
});

/**
 * The installed agent, as the printrelay user with the unit's command line, registers with an
 * emulator and says READY=1 on a notify socket: the compiled dist/ and the packaged natives
 * (better-sqlite3, unix-dgram) work.
 */
async function runInstalledAgent(): Promise<void> {
  const { process: emulator, url } = await startEmulatorProcess(join(dir, 'emu'));
  cleanups.push(() => emulator.stop());
  const socket = await NotifySocket.listen(join(dir, 'notify'));
  cleanups.push(() => socket.stop());
  chmodSync(socket.path, 0o666);
  const env = {
    NOTIFY_SOCKET: socket.path,
    PRINTRELAY_CLOUD__URL: url,
    PRINTRELAY_CLOUD__CLIENT_ID: 'demo-app',
    PRINTRELAY_CLOUD__CLIENT_SECRET: 'demo-secret',
    PRINTRELAY_CLOUD__USERNAME: 'admin@demo.test',
    PRINTRELAY_CLOUD__PASSWORD: 'demo-admin',
    PRINTRELAY_DISCOVERY__CUPS: 'false',
  };
  const agent = new CliProcess(
    [
      '/opt/printrelay/bin/printrelay.js',
      'agent',
      '--config',
      '/etc/printrelay/agent.yaml',
      '--data-dir',
      '/var/lib/printrelay',
      '--no-pretty',
    ],
    env,
    ['setpriv', '--reuid=printrelay', '--regid=printrelay', '--init-groups', '--', which('node') as string],
  );
  cleanups.push(() => agent.stop());
  await socket.waitFor(/^STATUS=connected as connector \S+; 0 printer\(s\) registered$/);
  expect(socket.lines()).toContain('READY=1');
  expect(await agent.stop()).toBe(0);
  expect(ok('stat', ['-c', '%U %a', '/var/lib/printrelay/tokens.json'])).toBe('printrelay 600\n');
}
