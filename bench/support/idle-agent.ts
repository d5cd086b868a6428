/**
 * Idle memory of a real `printrelay agent` process (bench:idle, and the idle figure of bench:e2e):
 * its resident memory (VmRSS) once it has registered `count` printers and settled. The printers
 * are real, so each one is described, registered and synced like a site's printer: queues of a
 * private cupsd all pointing at one ippeveprinter (BENCH_IDLE_VIA=cups, the default), or one
 * ippeveprinter each (BENCH_IDLE_VIA=ipp). The caller stops what it started.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { sleep } from '../../src/lib/abort.js';
import { addEverywhereQueue, startCupsd } from '../../test/support/cupsd.js';
import { startIppEvePrinter } from '../../test/support/ippeveprinter.js';
import { freePort } from '../../test/support/peers.js';
import {
  agentNodeEnv,
  agentNodeFlags,
  mb,
  memoryOf,
  pagesPhrase,
  privateMemoryOf,
  startPart,
} from './processes.js';
import { demoCloudSection } from '../../test/support/demo-session.js';

/** What an idle agent holds. */
export interface IdleFigures {
  /** Median VmRSS of five readings a second apart, bytes. */
  rss: number;
  /** The V8 heap in use (from /metrics), bytes. */
  heapUsed: number;
  /** The spread of the five readings. */
  note: string;
}

/** `count` printer URIs for idle agents and how they were made; stop() removes what it started. */
export interface IdlePrinters {
  uris: string[];
  setup: string;
  stop(): Promise<void>;
}

/** The printers of BENCH_IDLE_VIA (cups: queues bench-1..N of a private cupsd to `printerUri`; ipp: N ippeveprinters). */
export async function startIdlePrinters(
  printerUri: string,
  count: number,
  via = process.env.BENCH_IDLE_VIA ?? 'cups',
): Promise<IdlePrinters> {
  const started = performance.now();
  const took = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (via === 'ipp') {
    const printers: Awaited<ReturnType<typeof startIppEvePrinter>>[] = [];
    const stop = async () => {
      for (const printer of printers) await printer.stop();
    };
    try {
      for (let i = 1; i <= count; i++) printers.push(await startIppEvePrinter({ name: `Idle ${i}` }));
    } catch (error) {
      await stop();
      throw error;
    }
    return { uris: printers.map((p) => p.uri), setup: `${count} ippeveprinters in ${took()}`, stop };
  }
  if (via !== 'cups') throw new Error(`BENCH_IDLE_VIA must be cups or ipp, not '${via}'`);
  const cupsd = await startCupsd();
  try {
    for (let i = 1; i <= count; i++)
      await withRetries(() => addEverywhereQueue(cupsd, `bench-${i}`, printerUri));
  } catch (error) {
    await cupsd.stop();
    throw error;
  }
  return {
    uris: Array.from({ length: count }, (_, i) => `cups://bench-${i + 1}?server=${cupsd.server}`),
    setup: `${count} CUPS queues in ${took()}`,
    stop: () => cupsd.stop(),
  };
}

/** lpadmin now and then cannot connect while cupsd rewrites its state after many queues: try again. */
async function withRetries(task: () => void, attempts = 10): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      task();
      return;
    } catch (error) {
      if (i >= attempts) throw error;
      await sleep(1000);
    }
  }
}

/** The agent's own V8 heap in use, from its /metrics (prom-client's nodejs_heap_size_used_bytes). */
async function heapUsedOf(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

async function statusOf(port: number): Promise<{ printers: unknown[]; lastErrors: { message: string }[] }> {
  try {
    return (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as Awaited<
      ReturnType<typeof statusOf>
    >;
  } catch {
    return { printers: [], lastErrors: [] };
  }
}

/** What bench:idle-breakdown adds to an idle agent: node flags, and a look at it before it stops. */
export interface IdleAgentExtras {
  /** More node flags after the agent's (e.g. a `--require` probe). */
  nodeFlags?: string[];
  /** More environment for the agent. */
  env?: Record<string, string>;
  /** Another entry file than BENCH_ENTRY's (an A/B of another build of the agent). */
  entry?: string;
  /** Runs once the figures are read, before the agent stops. */
  onSettled?: (pid: number) => Promise<void>;
}

/**
 * Starts an agent (working files under `work`) with the first `count` printers of `uris`, waits
 * until it serves them, lets it settle `settleS` seconds, reads its memory and stops it.
 * `onStarted` may pin the process.
 */
export async function idleAgent(
  work: string,
  url: string,
  uris: string[],
  count: number,
  settleS: number,
  onStarted: (pid: number) => void = () => {},
  extras: IdleAgentExtras = {},
): Promise<IdleFigures> {
  const port = await freePort();
  const config = join(work, `agent-${count}.yaml`);
  const printers = Array.from({ length: count }, (_, i) => ({
    // names are unique in the organization: each agent gets its own
    name: `Idle ${count} Queue ${i + 1}`,
    uri: uris[i],
  }));
  writeFileSync(
    config,
    stringify({
      version: 1,
      cloud: demoCloudSection(url),
      connector: { name: `idle-${count}` },
      control: { port },
      log: { level: 'warn' },
      printers,
    }),
  );
  const agent = await startPart(
    ['agent', '--config', config, '--data-dir', join(work, `agent-${count}`)],
    null,
    undefined,
    [...agentNodeFlags(), ...(extras.nodeFlags ?? [])],
    { env: { ...agentNodeEnv(), ...extras.env }, ...(extras.entry ? { entry: extras.entry } : {}) },
  );
  try {
    onStarted(agent.part.pid);
    const deadline = Date.now() + 120_000;
    let status = await statusOf(port);
    while (status.printers.length < count && Date.now() < deadline) {
      await sleep(500);
      status = await statusOf(port);
    }
    if (status.printers.length < count) {
      const errors = status.lastErrors.map((e) => e.message).join(' | ');
      console.log(
        `note    the agent served ${status.printers.length} of ${count} printers after 120 s: ${errors}`,
      );
    }
    await sleep(settleS * 1000);
    // the median of five readings a second apart (timers and GC move it a little)
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(memoryOf(agent.part.pid).rss);
      await sleep(1000);
    }
    samples.sort((a, b) => a - b);
    const heapUsed = await heapUsedOf(port);
    const pages = privateMemoryOf(agent.part.pid);
    await extras.onSettled?.(agent.part.pid);
    return {
      rss: samples[2] ?? 0,
      heapUsed,
      note: `min ${mb(samples[0] ?? 0)}, max ${mb(samples[4] ?? 0)}; ${pagesPhrase(pages)}`,
    };
  } finally {
    await agent.part.stop();
  }
}
