/**
 * The baseline of the end-to-end benchmark: the same N documents sent straight to the printer by
 * ONE ipptool run on ONE connection (the fair limit for a daemon, see PEERS.md). ippeveprinter
 * takes one job at a time, so each Print-Job repeats on server-error-busy with a 1 ms delay.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onCore } from './pinning.js';
import { childrenCpuSecondsOf } from './processes.js';

/** Writes a .test file with `count` Print-Job blocks for `documentPath`. */
export function writeBatchTest(dir: string, count: number, documentPath: string, format: string): string {
  const block = `{
  NAME "Print-Job %i"
  OPERATION Print-Job
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR language attributes-natural-language en
  ATTR uri printer-uri $uri
  ATTR name requesting-user-name bench
  ATTR mimeMediaType document-format ${format}
  FILE ${documentPath}
  STATUS successful-ok
  STATUS server-error-busy REPEAT-MATCH REPEAT-LIMIT 100000
  DELAY "0,0.001"
}
`;
  const text = Array.from({ length: count }, (_, i) => block.replace('%i', String(i + 1))).join('');
  const path = join(dir, `batch-${count}.test`);
  writeFileSync(path, text);
  return path;
}

export interface BaselineResult {
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  /** CPU seconds (user + system) ipptool itself used. */
  cpuSeconds: number;
}

/**
 * Runs the batch with ipptool against `printerUri` (on `core` when given); resolves with its wall
 * time and its CPU time (this process's waited-for children: nothing else exits meanwhile).
 */
export function runIpptoolBatch(
  printerUri: string,
  testFile: string,
  jobs: number,
  core?: number,
): Promise<BaselineResult> {
  return new Promise((resolve, reject) => {
    const cpuBefore = childrenCpuSecondsOf(process.pid);
    const started = process.hrtime.bigint();
    const [command, args] = onCore(core, 'ipptool', ['-q', '-T', '300', printerUri, testFile]);
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) reject(new Error(`ipptool exited ${code}: ${stderr.slice(-500)}`));
      else {
        const cpuSeconds = childrenCpuSecondsOf(process.pid) - cpuBefore;
        resolve({ jobs, seconds, jobsPerSecond: jobs / seconds, cpuSeconds });
      }
    });
  });
}
