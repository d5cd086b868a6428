/**
 * The baseline of the end-to-end benchmark: the same N documents sent straight to the printer by
 * ONE ipptool run on ONE connection (the fair limit for a daemon, see PEERS.md). ippeveprinter
 * takes one job at a time, so each Print-Job repeats on server-error-busy with a 1 ms delay.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
}

/** Runs the batch with ipptool against `printerUri`; resolves with its wall time. */
export function runIpptoolBatch(printerUri: string, testFile: string, jobs: number): Promise<BaselineResult> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('ipptool', ['-q', '-T', '30', printerUri, testFile], {
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
      else resolve({ jobs, seconds, jobsPerSecond: jobs / seconds });
    });
  });
}
