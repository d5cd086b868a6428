/**
 * `printrelay swipe` without --reader and --data-dir takes its reader from ./.printrelay-demo/
 * agent.yaml. When that file is left from a demo that is not running, nobody listens at its
 * reader: the error names the file and what to do instead of a bare ECONNREFUSED.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/peers.js';

const BIN = resolve('bin/printrelay.js');

describe('printrelay swipe with a stale demo agent.yaml', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'swipe-stale-'));
    await mkdir(join(dir, '.printrelay-demo'), { mode: 0o700 });
    const port = await freePort();
    await writeFile(
      join(dir, '.printrelay-demo', 'agent.yaml'),
      `release_stations:\n  - printer: Pull Printing\n    reader: socket://127.0.0.1:${port}\n`,
      { mode: 0o600 },
    );
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('names the file and what to do when nobody listens at its reader', async () => {
    const swipe = spawn(process.execPath, [BIN, 'swipe', '04A1B2C3'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    swipe.stderr.on('data', (d) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((done) => swipe.on('exit', done));
    expect(code).toBe(1);
    const file = join(dir, '.printrelay-demo', 'agent.yaml');
    expect(stderr).toContain('ECONNREFUSED');
    expect(stderr).toContain(
      `The reader came from ${file}, which may be left from a demo that is not running`,
    );
    expect(stderr).toContain('--reader socket://HOST:PORT');
  }, 30_000);
});
