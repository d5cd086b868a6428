import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireDataDirLock,
  DataDirLockedError,
  processAlive,
  readLiveLock,
} from '../../../src/store/data-dir-lock.js';
import { statSync } from 'node:fs';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'printrelay-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const pid = Number(child.stdout.toString());
  expect(processAlive(pid)).toBe(false);
  return pid;
}

function lockRecord(): { pid: number; token: string } {
  return JSON.parse(readFileSync(join(dir, 'agent.lock'), 'utf8'));
}

describe('data directory lock', () => {
  it('notes how the control API came up in the record, keeping pid and token, still 0600 and still held', async () => {
    const lock = await acquireDataDirLock(dir);
    await lock.noteControl({ error: 'control API not started on 127.0.0.1:9631: EADDRINUSE' });
    expect(await readLiveLock(dir)).toMatchObject({
      pid: process.pid,
      token: lock.token,
      control: { error: 'control API not started on 127.0.0.1:9631: EADDRINUSE' },
    });
    expect(statSync(join(dir, 'agent.lock')).mode & 0o777).toBe(0o600);
    await expect(acquireDataDirLock(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    expect(readdirSync(dir)).toEqual(['agent.lock']);
    await lock.release();
    expect(await readLiveLock(dir)).toBeUndefined();
  });

  it('writes the pid in a 0600 file and removes it on release', async () => {
    const lock = await acquireDataDirLock(dir);
    expect(lock.path).toBe(join(dir, 'agent.lock'));
    expect(lockRecord().pid).toBe(process.pid);
    expect(readFileSync(lock.path).length).toBeGreaterThan(0);
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a second holder while the first holds it, naming the pid and the path', async () => {
    const lock = await acquireDataDirLock(dir);
    const second = acquireDataDirLock(dir);
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(acquireDataDirLock(dir)).rejects.toThrow(
      `another agent (pid ${process.pid}) is using this data directory: lock file ${join(dir, 'agent.lock')}. `,
    );
    await lock.release();
    const third = await acquireDataDirLock(dir);
    await third.release();
  });

  it('takes over the lock of a dead process', async () => {
    const pid = deadPid();
    writeFileSync(join(dir, 'agent.lock'), JSON.stringify({ pid, token: 'old', started: 'x' }));
    const lock = await acquireDataDirLock(dir);
    expect(lockRecord().pid).toBe(process.pid);
    expect(lockRecord().token).not.toBe('old');
    expect(readdirSync(dir)).toEqual(['agent.lock']);
    await lock.release();
  });

  it('takes over a lock with this pid that this process never wrote (a reused pid)', async () => {
    writeFileSync(join(dir, 'agent.lock'), JSON.stringify({ pid: process.pid, token: 'gone', started: 'x' }));
    const lock = await acquireDataDirLock(dir);
    expect(lockRecord().token).not.toBe('gone');
    await lock.release();
  });

  it('takes over an unreadable lock file', async () => {
    writeFileSync(join(dir, 'agent.lock'), '{"pid": 12');
    const lock = await acquireDataDirLock(dir);
    expect(lockRecord().pid).toBe(process.pid);
    await lock.release();
  });

  it('release leaves a lock alone that another process has taken since', async () => {
    const lock = await acquireDataDirLock(dir);
    writeFileSync(join(dir, 'agent.lock'), JSON.stringify({ pid: 1, token: 'other', started: 'x' }));
    await lock.release();
    expect(lockRecord()).toEqual({ pid: 1, token: 'other', started: 'x' });
  });
});
