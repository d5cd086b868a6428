/**
 * scripts/build-windows.ts for real (Windows cannot run here, so the files are checked): the
 * artifact holds the compiled agent, the production modules with natives for win32-x64 only
 * (Windows PE files, no Linux or musl binaries), better-sqlite3 13 with its win32-x64 prebuild
 * where its loader looks on Windows and without the Node 20 line, WinSW from node-windows, the
 * service definition and install.ps1 exactly as their golden files, and the compiled CLI runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowsInstallScript } from '../../src/service/windows-install-script.js';

const repo = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;
const out = mkdtempSync(join(tmpdir(), 'printrelay-win-'));
const fixtures = join(repo, 'test', 'fixtures', 'windows');
let app = '';
let stderr = '';

afterAll(() => rmSync(out, { recursive: true, force: true }));

beforeAll(() => {
  const run = spawnSync('npx', ['tsx', 'scripts/build-windows.ts', '--out', out], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (run.status !== 0) throw new Error(`build-windows exited ${run.status}:\n${run.stderr}`);
  app = run.stdout.trim().split('\n').at(-1) as string;
  stderr = run.stderr;
}, 600_000);

/** Every file under a folder, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** The machine a Windows PE file is built for (0x8664: x64), or undefined when it is no PE file. */
function peMachine(path: string): number | undefined {
  const bytes = readFileSync(path);
  if (bytes.length < 0x40 || bytes.toString('latin1', 0, 2) !== 'MZ') return undefined;
  const pe = bytes.readUInt32LE(0x3c);
  if (bytes.toString('latin1', pe, pe + 4) !== 'PE\0\0') return undefined;
  return bytes.readUInt16LE(pe + 4);
}

/** The first two bytes of a file: MZ for a Windows executable or DLL, \x7fE for ELF. */
function magic(path: string): string {
  const fd = openSync(path, 'r');
  const bytes = Buffer.alloc(2);
  readSync(fd, bytes, 0, 2, 0);
  closeSync(fd);
  return bytes.toString('latin1');
}

describe('the Windows artifact', () => {
  it('is one folder named by version and platform, with the agent, WinSW, the service definition and install.ps1', () => {
    expect(app).toBe(join(out, `printrelay-${version}-win32-x64`));
    const all = files(app);
    for (const file of [
      'dist/cli/main.js',
      'bin/printrelay.js',
      'package.json',
      'config/agent.example.yaml',
      'drivers/cardreaders/rfideas-pcprox.json',
      'node_modules/node-windows/bin/winsw/winsw.exe',
      'node_modules/node-windows/bin/winsw/winsw.exe.config',
      'install.ps1',
      'service/printrelay-agent.xml',
    ])
      expect(all).toContain(file);
    expect(magic(join(app, 'node_modules/node-windows/bin/winsw/winsw.exe'))).toBe('MZ');
    expect(all.filter((f) => f.startsWith('src/') || f.endsWith('.map') || f.endsWith('.ts'))).toEqual([]);
    expect(all.filter((f) => /node_modules\/(tsx|esbuild)\//.test(f))).toEqual([]);
  });

  it('carries natives for win32-x64 only, as Windows binaries', () => {
    const natives = files(app).filter((f) => f.endsWith('.node'));
    expect(natives.length).toBeGreaterThan(0);
    for (const file of natives) {
      expect(file).toMatch(/win32-x64/);
      expect(magic(join(app, file)), file).toBe('MZ');
    }
    expect(natives.some((f) => f.startsWith('node_modules/node-hid/'))).toBe(true);
    expect(natives.some((f) => f.startsWith('node_modules/@serialport/bindings-cpp/'))).toBe(true);
  });

  it('ships better-sqlite3 13 with its win32-x64 prebuild, and not the Node 20 line', () => {
    const all = files(app);
    const sqlite = all.filter((f) => f.startsWith('node_modules/better-sqlite3/') && f.endsWith('.node'));
    expect(sqlite).toEqual(['node_modules/better-sqlite3/prebuilds/win32-x64.node']);
    expect(peMachine(join(app, 'node_modules/better-sqlite3/prebuilds/win32-x64.node'))).toBe(0x8664);
    expect(
      (
        JSON.parse(readFileSync(join(app, 'node_modules/better-sqlite3/package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
    ).toMatch(/^13\./);
    expect(all.filter((f) => f.startsWith('node_modules/better-sqlite3-node20/'))).toEqual([]);
    expect(all.filter((f) => f.startsWith('node_modules/prebuild-install/'))).toEqual([]);
  });

  it('has better-sqlite3 load that prebuild on Windows', () => {
    // better-sqlite3's own loader, with the platform it reads set to win32 (this machine is
    // x64): it must reach prebuilds/win32-x64.node, which Linux then refuses to load.
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        "Object.defineProperty(process, 'platform', { value: 'win32' });" +
          'const Database = require(process.argv[1]);' +
          "try { new Database(':memory:'); console.log('loaded'); } catch (e) { console.log(e.message); }",
        join(app, 'node_modules', 'better-sqlite3'),
      ],
      { encoding: 'utf8' },
    );
    expect(process.arch).toBe('x64');
    expect(probe.stdout).toContain(join(app, 'node_modules/better-sqlite3/prebuilds/win32-x64.node'));
  });

  it('has install.ps1 need no network and refuse a Node older than 22.14, and names the natives left out', () => {
    const script = readFileSync(join(app, 'install.ps1'), 'utf8');
    expect(script).toBe(readFileSync(join(fixtures, 'install.ps1'), 'utf8'));
    expect(script).toBe(windowsInstallScript());
    expect(script).not.toMatch(/npm|rebuild|Invoke-WebRequest|http/i);
    expect(stderr).toContain(
      'build-windows: unix-dgram has no Windows binary in this artifact (built from source only)\n',
    );
  });

  it('ships the service definition of the default paths, as the golden file', () => {
    expect(readFileSync(join(app, 'service', 'printrelay-agent.xml'), 'utf8')).toBe(
      readFileSync(join(fixtures, 'service', 'printrelay-agent.xml'), 'utf8'),
    );
  });

  it('runs its compiled CLI', () => {
    const cli = join(app, 'bin', 'printrelay.js');
    expect(execFileSync(process.execPath, [cli, '--version'], { encoding: 'utf8' })).toBe(`${version}\n`);
    expect(
      execFileSync(process.execPath, [cli, 'config', 'validate', join(app, 'config', 'agent.example.yaml')], {
        encoding: 'utf8',
      }),
    ).toBe('valid\n');
  });
});
