/**
 * The Debian package, for real: scripts/build-deb.sh builds it, Debian's lintian finds no error
 * or warning in it (an override needs a comment saying why), it ships only what runs on Linux,
 * `dpkg -i` installs it on this machine (root needed: CI runs as root; locally the install test
 * skips with its reason unless CI=true), the installed `printrelay` answers --version and
 * validates its config, the installed unit passes systemd-analyze, the installed agent runs as
 * the printrelay user against the emulator and tells the notify socket READY=1, an upgrade keeps
 * the edited config, `dpkg -r` keeps config and state, and `dpkg -P` deletes them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeMachineLock } from '../support/machine-lock.js';
import { NotifySocket } from '../support/notify-socket.js';
import { peersAvailable } from '../support/peers.js';
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

/** The package built once for every test below. */
let builtDeb: string | undefined;
function buildOnce(): string {
  if (!builtDeb) {
    const out = ok('scripts/build-deb.sh', ['--fast', '--out', dir]).trim().split('\n').at(-1) as string;
    expect(out).toBe(join(dir, `printrelay_${version}_${hostArch}.deb`));
    builtDeb = out;
  }
  return builtDeb;
}

/** Paths (relative to /) of every file and link in an unpacked package tree. */
function packagedPaths(tree: string): string[] {
  return readdirSync(tree, { recursive: true, encoding: 'utf8' }).filter(
    (path) => !lstatSync(join(tree, path)).isDirectory(),
  );
}

const canLint = peersAvailable('dpkg-deb', 'dpkg-shlibdeps', 'strip', 'lintian');

describe.skipIf(!canLint)('the built .deb', () => {
  let deb: string;
  const tree = join(dir, 'unpacked');
  beforeAll(() => {
    deb = buildOnce();
    ok('dpkg-deb', ['-x', deb, tree]);
  }, 600_000);

  it('passes lintian with no error or warning', () => {
    const result = run('lintian', ['--tag-display-limit', '0', '--fail-on', 'error,warning', deb]);
    const tags = result.stdout.split('\n').filter((line) => /^[EW]: /.test(line));
    expect(tags).toEqual([]);
    expect(result.code).toBe(0);
  }, 600_000);

  it('explains every lintian override it carries', () => {
    const file = join(repo, 'packaging', 'debian', 'lintian-overrides');
    if (!existsSync(file)) return; // nothing overridden
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (line.trim() === '' || line.startsWith('#')) return;
      expect(lines[index - 1], `lintian-overrides line ${index + 1} needs a comment above it`).toMatch(
        /^# \S/,
      );
    });
  });

  it('ships only what runs on Linux, under /usr/lib/printrelay', () => {
    const paths = packagedPaths(tree);
    expect(paths.filter((p) => p.startsWith('opt/'))).toEqual([]);
    // Windows programs, C/C++ sources, TypeScript, maps, markdown, dotfiles, musl natives, and
    // prebuilt natives of other platforms (JavaScript for them stays: packages pick it at run time).
    const foreign =
      /\.(exe|dll|pdb|bat|cmd|ps1|c|cc|cpp|h|hpp|gyp|gypi|ts|map|md|sh)$|(^|\/)\.[^/]+$|(musl|win32|darwin)[^/]*\.node$/i;
    const app = paths.filter((p) => p.startsWith('usr/lib/printrelay/'));
    expect(app.filter((p) => foreign.test(p) && !/\/licen[cs]e\.md$/i.test(p))).toEqual([]);
    expect(app).toContain('usr/lib/printrelay/dist/cli/main.js');
    // Both SQLite lines: better-sqlite3 13's prebuild for this architecture (Node 22.14 and
    // later), and better-sqlite3 12 as compiled by npm (Node 20: the package depends on nodejs >= 20.19).
    const nodeArch = hostArch === 'arm64' ? 'arm64' : 'x64';
    expect(app).toContain(`usr/lib/printrelay/node_modules/better-sqlite3/prebuilds/linux-${nodeArch}.node`);
    expect(app.filter((p) => p.startsWith('usr/lib/printrelay/node_modules/better-sqlite3/build/'))).toEqual(
      [],
    );
    expect(app).toContain(
      'usr/lib/printrelay/node_modules/better-sqlite3-node20/build/Release/better_sqlite3.node',
    );
    expect(app).toContain('usr/lib/printrelay/drivers/cardreaders/rfideas-pcprox.json');
    expect(paths).toContain('usr/share/man/man1/printrelay.1.gz');
    expect(paths).toContain('usr/share/doc/printrelay/copyright');
    expect(paths).toContain('usr/share/doc/printrelay/examples/agent.example.yaml');
  });

  it('installs the hidraw udev rule of every shipped HID reader, and an optional environment file', () => {
    const rules = readFileSync(join(tree, 'lib/udev/rules.d/60-printrelay-card-readers.rules'), 'utf8');
    expect(rules).toContain(
      'SUBSYSTEM=="hidraw", ATTRS{idVendor}=="0c27", ATTRS{idProduct}=="3bfa", MODE="0660", GROUP="printrelay"',
    );
    expect(rules).toContain('ATTRS{idVendor}=="076b", ATTRS{idProduct}=="5427"');
    expect(rules).not.toContain('idVendor}=="09d8"'); // the Elatec TWN4 is a serial (CDC) reader
    const unit = readFileSync(join(tree, 'lib/systemd/system/printrelay-agent.service'), 'utf8');
    expect(unit).toMatch(/^EnvironmentFile=-\/etc\/default\/printrelay$/m);
    expect(unit).toMatch(
      /^ExecStart=\/usr\/bin\/node .* \/usr\/lib\/printrelay\/bin\/printrelay\.js agent /m,
    );
    expect(readFileSync(join(tree, 'etc/default/printrelay'), 'utf8')).toMatch(
      /^#PRINTRELAY_LOG__LEVEL=debug$/m,
    );
    const control = ok('dpkg-deb', ['-f', deb, 'Maintainer', 'Depends']);
    expect(control).not.toMatch(/localhost/);
    expect(control).toMatch(/^Depends: nodejs \(>= 20\.19\), adduser, .*libc6/m);
  });
});

const blocker = installBlocker();
if (blocker) console.warn(`skipping the .deb install test: ${blocker}`);
const hasPeers =
  !blocker && peersAvailable('dpkg-deb', 'systemd-analyze', 'socat', 'setpriv', 'unshare', 'flock');

describe.skipIf(blocker !== undefined || !hasPeers)('the .deb on this machine', () => {
  it('installs, runs, upgrades keeping the config, removes keeping state, and purges', async () => {
    // The package, its user and its unit are the machine's: a second run of this test on the same
    // machine (another checkout, another Node line) waits for this one instead of purging under it.
    const lock = await takeMachineLock('/run/lock/printrelay-deb-install-test.lock', 600_000);
    cleanups.unshift(() => lock.release());
    if (run('dpkg-query', ['-W', 'printrelay']).code === 0) ok('dpkg', ['-P', 'printrelay']);
    // The package keeps its system user on purge, as Debian does; the test removes the user it
    // made, so a CI machine ends as it began.
    if (run('id', ['-u', 'printrelay']).code !== 0) {
      cleanups.push(() => {
        run('userdel', ['printrelay']);
        run('groupdel', ['printrelay']);
      });
    }
    const built = buildOnce();
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
    expect(dpkgField('Conffiles')).toMatch(
      /^ \/etc\/printrelay\/agent\.yaml [0-9a-f]{32}\n \/etc\/default\/printrelay [0-9a-f]{32}$/,
    );
    expect(ok('stat', ['-c', '%U:%G %a', '/etc/default/printrelay'])).toBe('root:root 600\n');
    expect(ok('dpkg', ['--verify', 'printrelay'])).toBe('');
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
    for (const gone of ['/usr/lib/printrelay', '/usr/bin/printrelay', unit])
      expect(existsSync(gone)).toBe(false);
    expect(readFileSync('/etc/printrelay/agent.yaml', 'utf8')).toMatch(/# edited on site\n$/);
    expect(existsSync('/var/lib/printrelay/tokens.json')).toBe(true);
    expect(existsSync('/var/lib/printrelay/agent.db')).toBe(true);
    expect(dpkgField('Status')).toBe('deinstall ok config-files');

    ok('dpkg', ['-P', 'printrelay']);
    expect(existsSync('/etc/printrelay')).toBe(false);
    expect(existsSync('/var/lib/printrelay')).toBe(false);
    expect(run('dpkg-query', ['-W', 'printrelay']).code).toBe(1);
    expect(ok('id', ['-un', 'printrelay'])).toBe('printrelay\n'); // system users stay
  }, 1_200_000); // up to 600 s waiting for another run's machine lock, then the run itself
});

/**
 * The installed unit's ExecStart line: its command and arguments, as systemd would split them
 * (the line holds no quotes or variables).
 */
function unitExecStart(unit: string): string[] {
  const line = /^ExecStart=(.+)$/m.exec(readFileSync(unit, 'utf8'))?.[1];
  if (!line) throw new Error(`${unit} has no ExecStart line`);
  return line.trim().split(/\s+/);
}

/**
 * The installed unit's Environment= lines as variables (the values hold no quotes or spaces).
 */
function unitEnvironment(unit: string): Record<string, string> {
  const lines = readFileSync(unit, 'utf8').match(/^Environment=\S+=\S*$/gm) ?? [];
  return Object.fromEntries(
    lines.map((line) => {
      const assignment = line.slice('Environment='.length);
      const at = assignment.indexOf('=');
      return [assignment.slice(0, at), assignment.slice(at + 1)];
    }),
  );
}

/**
 * The command that runs `command` with /usr/bin/node being the node of this test run, so the unit's
 * ExecStart runs on the Node line under test (CI's Node 22 and 24 legs, .ci/node-line) with its
 * own path: as it is when /usr/bin/node is that node, else in a mount namespace of its own where
 * this node is bind-mounted over /usr/bin/node (the machine's /usr/bin/node stays as it is for
 * every other process). Where the machine has no /usr/bin/node, this node runs in its place.
 */
function onThisNode(unitNode: string, command: string[]): string[] {
  const self = realpathSync(process.execPath);
  if (!existsSync(unitNode)) return command.map((part) => (part === unitNode ? self : part));
  if (realpathSync(unitNode) === self) return command;
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    'mount --bind "$1" "$2" && shift 2 && exec "$@"',
    'sh',
    self,
    unitNode,
    ...command,
  ];
}

/**
 * The installed agent, as the printrelay user with the unit's ExecStart command line (node, its
 * flags, the installed bin/printrelay.js running the bundle) and its Environment= lines on the Node line of this test run
 * (onThisNode), registers with an emulator and says READY=1 on a notify socket: the bundle in
 * dist/ and the packaged natives (better-sqlite3 of that line, unix-dgram) work.
 */
async function runInstalledAgent(): Promise<void> {
  const { process: emulator, url } = await startEmulatorProcess(join(dir, 'emu'));
  cleanups.push(() => emulator.stop());
  const socket = await NotifySocket.listen(join(dir, 'notify'));
  cleanups.push(() => socket.stop());
  chmodSync(socket.path, 0o666);
  const unitFile = '/lib/systemd/system/printrelay-agent.service';
  const unitEnv = unitEnvironment(unitFile);
  expect(unitEnv).toMatchObject({ NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' });
  const env = {
    ...unitEnv,
    NOTIFY_SOCKET: socket.path,
    PRINTRELAY_CLOUD__URL: url,
    PRINTRELAY_CLOUD__CLIENT_ID: 'demo-app',
    PRINTRELAY_CLOUD__CLIENT_SECRET: 'demo-secret',
    PRINTRELAY_CLOUD__USERNAME: 'admin@demo.test',
    PRINTRELAY_CLOUD__PASSWORD: 'demo-admin',
    PRINTRELAY_DISCOVERY__CUPS: 'false',
  };
  const [node, ...args] = unitExecStart(unitFile);
  expect(node).toBe('/usr/bin/node');
  expect(args).toContain('/usr/lib/printrelay/bin/printrelay.js');
  const agent = new CliProcess(
    [...args, '--no-pretty'],
    env,
    onThisNode(node as string, [
      'setpriv',
      '--reuid=printrelay',
      '--regid=printrelay',
      '--init-groups',
      '--',
      node as string,
    ]),
  );
  cleanups.push(() => agent.stop());
  // an agent that exits (a binding this node cannot load, say) fails the test at once, with its output
  const exitedEarly = agent.exited.then((code) => {
    throw new Error(`the installed agent exited with ${code} before it was ready:\n${agent.stderr}`);
  });
  await Promise.race([
    socket.waitFor(/^STATUS=connected as connector \S+; 0 printer\(s\) registered$/),
    exitedEarly,
  ]);
  exitedEarly.catch(() => {}); // the agent exits at its stop below
  expect(socket.lines()).toContain('READY=1');
  // the agent's process runs this test's node binary (the same file, whatever path it has there)
  const running = statSync(`/proc/${agent.pid}/exe`);
  const self = statSync(process.execPath);
  expect([running.dev, running.ino]).toEqual([self.dev, self.ino]);
  // and with the unit's environment (glibc reads MALLOC_ARENA_MAX from it at start)
  expect(readFileSync(`/proc/${agent.pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
  expect(await agent.stop()).toBe(0);
  expect(ok('stat', ['-c', '%U %a', '/var/lib/printrelay/tokens.json'])).toBe('printrelay 600\n');
}
