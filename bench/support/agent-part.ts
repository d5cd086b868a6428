/**
 * The agent of bench:e2e: a real `printrelay agent` process with one IPP printer, its control API
 * on a free port, logging at warn. Resolves once its /readyz answers 200 (registered, token valid,
 * cloud reachable), with the time that took from the spawn.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { sleep } from '../../src/lib/abort.js';
import { freePort } from '../../test/support/peers.js';
import { agentNodeEnv, agentNodeFlags, type RunningPart, startPart } from './processes.js';
import { demoCloudSection } from '../../test/support/demo-session.js';

export interface BenchAgent {
  part: RunningPart;
  controlPort: number;
  /** Seconds from the spawn to the first 200 of /readyz. */
  readySeconds: number;
}

/**
 * Starts the agent; `onStarted` runs right after the spawn (to pin it), BENCH_AGENT_ENV's and
 * `env`'s variables are added to its environment. The caller stops it.
 */
export async function startBenchAgent(
  work: string,
  cloudUrl: string,
  printer: { name: string; uri: string },
  onStarted: (pid: number) => void = () => {},
  env: Record<string, string> = {},
): Promise<BenchAgent> {
  const config = join(work, 'agent.yaml');
  const controlPort = await freePort();
  writeFileSync(
    config,
    stringify({
      version: 1,
      cloud: demoCloudSection(cloudUrl),
      log: { level: 'warn' },
      control: { port: controlPort },
      printers: [printer],
    }),
  );
  const started = performance.now();
  const { part } = await startPart(
    ['agent', '--config', config, '--data-dir', join(work, 'agent'), '--no-pretty'],
    null,
    undefined,
    agentNodeFlags(),
    { env: { ...agentNodeEnv(), ...env } },
  );
  onStarted(part.pid);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${controlPort}/readyz`)
      .then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      })
      .catch(() => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      await part.stop();
      throw new Error('the agent was not ready (/readyz) after 120 s');
    }
    await sleep(10);
  }
  return { part, controlPort, readySeconds: (performance.now() - started) / 1000 };
}
