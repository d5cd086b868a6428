/**
 * The production tree works as a package user and a Windows install get it: `npm pack` (its
 * prepack builds dist/), the tarball unpacked (no src/, no tests), the dependencies without the
 * development ones (`npm prune --omit=dev` over a copy of this checkout's node_modules, so no
 * native module is compiled again). There, every command's and subcommand's `--help` answers,
 * and `demo --tls` (a self-signed certificate made at run time) reaches its ready line and stops
 * with status 0.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess } from './cli-process.js';

const checkout = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'printrelay-production-'));
const app = join(dir, 'app');
const launcher = [process.execPath, join(app, 'bin', 'printrelay.js')];

/** Runs the packaged printrelay with `args` to the end. */
async function runPackaged(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = new CliProcess(args, {}, launcher);
  const code = await cli.exited;
  return { code, stdout: cli.stdout, stderr: cli.stderr };
}

/** The subcommand names listed under "Commands:" in a commander help text (`help` left out). */
function commandsOf(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)]
    .map((m) => m[1] as string)
    .filter((name) => name !== 'help');
}

beforeAll(() => {
  execFileSync('npm', ['pack', '--pack-destination', dir], {
    cwd: checkout,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz')) as string;
  mkdirSync(app);
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', app, '--strip-components=1']);
  // The checkout's installed tree, hard-linked (npm prune only unlinks), pruned to production.
  execFileSync('cp', ['-al', join(checkout, 'node_modules'), join(app, 'node_modules')]);
  const hiddenLock = join(app, 'node_modules', '.package-lock.json');
  rmSync(hiddenLock, { force: true });
  copyFileSync(join(checkout, 'node_modules', '.package-lock.json'), hiddenLock);
  copyFileSync(join(checkout, 'package-lock.json'), join(app, 'package-lock.json'));
  execFileSync('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
    cwd: app,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the production install (npm pack, --omit=dev)', () => {
  it('holds the built program and its data, not the sources or the development tools', () => {
    expect(readdirSync(app).sort()).toEqual([
      'README.md',
      'bin',
      'config',
      'dist',
      'docs',
      'drivers',
      'node_modules',
      'package-lock.json',
      'package.json',
    ]);
    expect(existsSync(join(app, 'dist', 'cli', 'main.js'))).toBe(true);
    const installed = (name: string) => existsSync(join(app, 'node_modules', name, 'package.json'));
    expect(['tsx', 'typescript', 'vitest', '@biomejs/biome'].filter(installed)).toEqual([]);
    expect(['selfsigned', 'better-sqlite3', 'fastify'].filter(installed)).toEqual([
      'selfsigned',
      'better-sqlite3',
      'fastify',
    ]);
  });

  it("answers every command's and subcommand's --help", async () => {
    const pending: string[][] = [[]];
    const answered: string[] = [];
    for (let command = pending.shift(); command; command = pending.shift()) {
      const result = await runPackaged([...command, '--help']);
      expect({ command, code: result.code, stderr: result.stderr }).toEqual({ command, code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: printrelay/);
      answered.push(command.join(' '));
      for (const sub of commandsOf(result.stdout)) pending.push([...command, sub]);
    }
    expect(answered).toEqual(expect.arrayContaining(['', 'demo', 'emulator', 'agent', 'print', 'service']));
  }, 600_000);

  it('runs demo --tls to its ready line and stops with status 0', async () => {
    const demo = new CliProcess(
      ['demo', '--tls', '--port', '0', '--data-dir', join(dir, 'demo')],
      {},
      launcher,
    );
    try {
      await demo.waitFor(/^ready\b/m);
      expect(demo.stdout).toMatch(/Cloud emulator\s+https:\/\/127\.0\.0\.1:\d+/);
      expect(demo.stdout).toContain('TLS certificate');
    } finally {
      expect(await demo.stop()).toBe(0);
    }
  }, 180_000);
});
