/**
 * Everything a demo run leaves on disk is private, whatever the umask: the real `printrelay
 * demo` process started under umask 022 prints a job, releases nothing for an unknown card (a
 * registration sheet is printed), stops and starts again on the same data directory; then every
 * directory under the data directory is 0700 and every file 0600 — the demo's agent.yaml, the
 * agent's database with its -wal/-shm, spool and lock, the emulator's database, uploads and keys,
 * the printed documents. The emulator no longer warns about its own directory.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePdf } from '../support/pdf.js';
import { CliProcess, runCli } from './cli-process.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'printrelay.js');
/** Runs node under umask 022, as a login shell usually does. */
const UMASK_022 = ['sh', '-c', 'umask 022; exec "$0" "$@"', process.execPath, bin];

/** Every path under `dir` (not `dir` itself) with its permission bits. */
function walk(dir: string): { path: string; mode: number; directory: boolean }[] {
  const found: { path: string; mode: number; directory: boolean }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    found.push({ path, mode: stat.mode & 0o777, directory: stat.isDirectory() });
    if (stat.isDirectory()) found.push(...walk(path));
  }
  return found;
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (done()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the files of a demo run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'demo-modes-'));
  const dataDir = join(dir, 'demo');
  const demos: CliProcess[] = [];

  afterAll(async () => {
    for (const demo of demos) await demo.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startDemo(): Promise<{ demo: CliProcess; url: string }> {
    const demo = new CliProcess(['demo', '--port', '0', '--data-dir', dataDir], {}, UMASK_022);
    demos.push(demo);
    await demo.waitFor(/^ready\b.*$/m);
    const url = (await demo.waitFor(/Cloud emulator\s+(http:\/\/\S+)/))[1]!;
    return { demo, url };
  }

  it('are 0700 directories and 0600 files after a print, a swipe and a restart, under umask 022', async () => {
    const first = await startDemo();
    const pdf = await writePdf(join(dir, 'private.pdf'), 1, 'private document');
    const printed = await runCli(['print', pdf, '--printer', 'Demo Printer', '--url', first.url]);
    expect(printed.code, printed.stderr).toBe(0);
    const swiped = await runCli(['swipe', '0F0E0D0C0B', '--data-dir', dataDir]);
    expect(swiped.stdout).toMatch(/registration code/);
    // the printed job and the registration sheet
    await until('two printed documents', () => readdirSync(join(dataDir, 'printed')).length >= 2);
    // while it runs, SQLite's journals are there too
    const running = walk(dataDir);
    expect(running.map((p) => p.path.slice(dataDir.length + 1))).toContain('agent/agent.db-wal');
    expect(await first.demo.stop()).toBe(0);

    const second = await startDemo();
    expect(await second.demo.stop()).toBe(0);

    const paths = [...running, ...walk(dataDir)];
    const names = paths.map((p) => p.path.slice(dataDir.length + 1));
    // the walk covers what the issue names
    for (const expected of ['agent.yaml', 'agent', 'agent/agent.db', 'printed', 'emulator', 'emulator.db'])
      expect(names).toContain(expected);
    const open = paths
      .filter((p) => p.mode !== (p.directory ? 0o700 : 0o600))
      .map((p) => `${p.path.slice(dataDir.length + 1)} ${p.mode.toString(8)}`);
    expect(open).toEqual([]);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    for (const demo of [first.demo, second.demo])
      expect(`${demo.stdout}${demo.stderr}`).not.toMatch(/readable by other users/);
  }, 180_000);
});
