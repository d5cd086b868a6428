/**
 * Processes that keep the machine's cores busy beside a proof, so it is shown to hold under load
 * and not only on an idle machine: each is a shell busy loop under `timeout`, so it ends by itself
 * after `maxSeconds` even if the test process dies; stop() ends them earlier, by their process ids.
 * FAULT_LOAD names how many a proof starts (`cores`: one per core the machine offers).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface CpuBurners {
  readonly count: number;
  stop(): Promise<void>;
}

/** How many burners FAULT_LOAD asks for: a number, `cores`, or 0 when unset. */
export function burnersWanted(value = process.env.FAULT_LOAD): number {
  if (value === undefined || value === '') return 0;
  if (value === 'cores') return availableParallelism();
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) {
    throw new Error(`FAULT_LOAD must be a whole number of busy processes or 'cores' (got ${value})`);
  }
  return count;
}

/** Starts `count` busy loops, each ended by `timeout` after `maxSeconds` at the latest. */
export function startCpuBurners(count: number, maxSeconds: number): CpuBurners {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    children.push(
      spawn('timeout', [String(maxSeconds), 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }),
    );
  }
  return {
    count,
    async stop() {
      await Promise.all(
        children.map((child) => {
          if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
          const exited = new Promise((resolve) => child.once('exit', resolve));
          // timeout passes the signal on to its busy loop.
          child.kill('SIGTERM');
          return exited;
        }),
      );
    },
  };
}
