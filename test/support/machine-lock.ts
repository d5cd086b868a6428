/**
 * A lock held across processes on this machine, for tests that change machine-wide state (a
 * system package, a system user). It is held by a `flock` child process, so the kernel releases it
 * when that child or the test process dies: a crashed run never leaves it taken.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface MachineLock {
  release(): Promise<void>;
}

/** Waits up to `timeoutMs` for the exclusive lock on `path`; throws naming the path if it stays taken. */
export async function takeMachineLock(path: string, timeoutMs: number): Promise<MachineLock> {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const child = spawn(
    'flock',
    ['--exclusive', '--timeout', String(seconds), path, 'sh', '-c', 'echo held; exec cat'],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const held = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('held')) resolve();
    });
    child.once('exit', (code) =>
      reject(
        new Error(
          `the machine lock ${path} was not taken within ${seconds} s (flock exited ${code}) ${stderr}`,
        ),
      ),
    );
    child.once('error', reject);
  });
  await held;
  return {
    async release() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.end(); // cat ends, so flock ends and the kernel drops the lock
      await exited;
    },
  };
}
