import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { takeMachineLock } from '../../support/machine-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'printrelay-lock-'));
  dirs.push(dir);
  return join(dir, 'test.lock');
}

describe('takeMachineLock', () => {
  it('makes a second taker wait, names the lock when it gives up, and lets it in once released', async () => {
    const path = lockPath();
    const first = await takeMachineLock(path, 5_000);
    await expect(takeMachineLock(path, 1_000)).rejects.toThrow(
      `the machine lock ${path} was not taken within 1 s`,
    );
    const waiting = takeMachineLock(path, 10_000);
    await first.release();
    const second = await waiting;
    await second.release();
    await second.release(); // releasing twice is harmless
  });
});
