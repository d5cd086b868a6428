/**
 * The pinned mode of the benchmarks: the agent and the printer share one core, the cloud side
 * (emulator and the app, i.e. the benchmark process) has the other, so the agent's throughput can
 * be compared with a direct client (ipptool) given the same one core. Uses `taskset` (util-linux).
 * BENCH_PIN=1 forces it, BENCH_PIN=0 turns it off; by default it is on with >= 2 cores and taskset.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { which } from '../../test/support/peers.js';

export interface PinPlan {
  /** The core of the agent, the printer, and ipptool in the direct runs. */
  agentCore: number;
  /** The core of the emulator and the app (this process). */
  cloudCore: number;
}

/** The plan, or null when the run is not pinned (with the reason printed once). */
export function pinPlan(env: Record<string, string | undefined> = process.env): PinPlan | null {
  const cores = availableParallelism();
  const wanted = env.BENCH_PIN ?? (cores >= 2 ? '1' : '0');
  if (wanted === '0') return null;
  if (!which('taskset')) throw new Error('BENCH_PIN needs taskset (apt-get install util-linux)');
  if (cores < 2) throw new Error(`BENCH_PIN needs 2 cores, this machine has ${cores}`);
  return { agentCore: 0, cloudCore: 1 };
}

/**
 * Moves every thread of process `pid` to `core` (threads it starts later inherit it). taskset
 * fails when a thread it listed ends before it is moved (ippeveprinter starts and ends threads
 * while it runs): it is run again, up to five times, before the failure is thrown.
 */
export function pinProcess(pid: number, core: number): void {
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', String(core), String(pid)], {
        stdio: 'ignore',
      });
      return;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/** The command and arguments that run `command args` on `core` (unchanged without a core). */
export function onCore(core: number | undefined, command: string, args: string[]): [string, string[]] {
  return core === undefined ? [command, args] : ['taskset', ['--cpu-list', String(core), command, ...args]];
}
