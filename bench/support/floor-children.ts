/**
 * The child processes of bench:floor: a node process with the agent's flags running a script of
 * bench/support through tsx (on a core when given), its output awaited, and its stop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { onCore } from './pinning.js';
import { agentNodeEnv, agentNodeFlags } from './processes.js';

/**
 * A node process with the agent's flags and environment running `script args` through tsx (on `core` when given);
 * with BENCH_PROFILE_DIR=<dir> it writes a V8 CPU profile there when it exits, as the agent does.
 */
export function nodeChild(script: string, args: string[], core: number | undefined): ChildProcess {
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const [command, argv] = onCore(core, process.execPath, [
    ...agentNodeFlags(),
    ...profile,
    '--import',
    'tsx',
    join(import.meta.dirname, script),
    ...args,
  ]);
  return spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...agentNodeEnv() },
  });
}

/** Resolves with the child's stdout once `pattern` shows in it; rejects when it exits first. */
export function outputOf(child: ChildProcess, pattern: RegExp): Promise<string> {
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (pattern.test(out)) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`child exited ${code}: ${err.slice(-1500)}`)));
  });
}

/** Stops a child with SIGTERM (when it still runs) and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
