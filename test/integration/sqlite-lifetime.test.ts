/**
 * The SQLite binding chosen for this Node (src/lib/sqlite.ts) never aborts the process: not when
 * the garbage collector frees thousands of prepared statements, before or after their database
 * is closed, and not when the process ends with databases and statements still open. On Node 24,
 * better-sqlite3 12 aborted in both cases (`Assertion failed: (env) != nullptr`). Each case runs
 * in a child process (sqlite-lifetime-child.ts) whose exit status is the proof. CI runs this file
 * on Node 20, 22 and 24.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_PACKAGE, sqlitePackageFor } from '../../src/lib/sqlite.js';

const childScript = join(import.meta.dirname, 'sqlite-lifetime-child.ts');

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(mode: string, dir: string): Promise<Outcome> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', childScript], {
    env: { ...process.env, MODE: mode, DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

describe(`the SQLite binding on Node ${process.versions.node}`, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-lifetime-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is better-sqlite3 13 from Node-API 10 (Node 22.14+, 24) and better-sqlite3 12 below (Node 20)', () => {
    expect(sqlitePackageFor('9')).toBe('better-sqlite3-node20');
    expect(sqlitePackageFor('10')).toBe('better-sqlite3');
    expect(sqlitePackageFor('11')).toBe('better-sqlite3');
    expect(sqlitePackageFor(undefined)).toBe('better-sqlite3-node20');
    expect(SQLITE_PACKAGE).toBe(sqlitePackageFor(process.versions.napi));
  });

  for (const mode of ['gc', 'exit-open']) {
    const what =
      mode === 'gc'
        ? 'survives garbage collection of 20,000 prepared statements, open and closed databases'
        : 'exits cleanly with databases and statements still open';
    it(`${what}, and loads only its own binding`, async () => {
      const outcome = await runChild(mode, dir);
      expect({ code: outcome.code, signal: outcome.signal, stderr: outcome.stderr }).toEqual({
        code: 0,
        signal: null,
        stderr: '',
      });
      expect(outcome.stdout).toBe(`binding ${SQLITE_PACKAGE}\nloaded ${SQLITE_PACKAGE}\ndone\n`);
    }, 180_000);
  }
});
