/**
 * Idle memory of the agent: resident memory (VmRSS) of a real `printrelay agent` process once it
 * has registered its printers and settled, with 1 and with BENCH_PRINTERS (50) configured
 * printers. The printers are real: queues of a private cupsd, all pointing at one ippeveprinter,
 * so each one is described, registered and synced like a site's printer. The 1-printer agent is
 * the baseline of the same run.
 *
 *   npm run bench:idle     (BENCH_PRINTERS=50, BENCH_SETTLE_S=15)
 * Prints the RSS of both agents, the cost per extra printer, and last `ratio <50/1 RSS>`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DEMO } from '../src/config/demo-seed.js';
import { sleep } from '../src/lib/abort.js';
import { addEverywhereQueue, startCupsd } from '../test/support/cupsd.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { freePort } from '../test/support/peers.js';
import { mb, memoryOf, startEmulatorPart, startPart } from './support/processes.js';

const many = Number(process.env.BENCH_PRINTERS ?? 50);
const settleS = Number(process.env.BENCH_SETTLE_S ?? 15);

interface Idle {
  rss: number;
  heapUsed: number;
  heapNote: string;
}

/** Starts an agent with the first `count` queues, waits until it serves them and settles; returns its RSS. */
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

async function idleAgent(work: string, url: string, server: string, count: number): Promise<Idle> {
  const port = await freePort();
  const config = join(work, `agent-${count}.yaml`);
  const printers = Array.from({ length: count }, (_, i) => ({
    // names are unique in the organization: each agent gets its own
    name: `Idle ${count} Queue ${i + 1}`,
    uri: `cups://bench-${i + 1}?server=${server}`,
  }));
  writeFileSync(
    config,
    stringify({
      version: 1,
      cloud: {
        url,
        client_id: DEMO.client.id,
        client_secret: DEMO.client.secret,
        username: DEMO.admin.email,
        password: DEMO.admin.password,
      },
      connector: { name: `idle-${count}` },
      control: { port },
      log: { level: 'warn' },
      printers,
    }),
  );
  const agent = await startPart(
    ['agent', '--config', config, '--data-dir', join(work, `agent-${count}`)],
    null,
  );
  try {
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
    return {
      rss: samples[2] ?? 0,
      heapUsed,
      heapNote: `min ${mb(samples[0] ?? 0)}, max ${mb(samples[4] ?? 0)}`,
    };
  } finally {
    await agent.part.stop();
  }
}

/** lpadmin now and then cannot connect while cupsd rewrites its state after many queues: try again. */
async function withRetries(task: () => void, attempts = 5): Promise<void> {
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

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-idle-'));
  const printer = await startIppEvePrinter({ name: 'Bench Idle Printer' });
  const cupsd = await startCupsd();
  const stops: (() => Promise<void>)[] = [() => printer.stop(), () => cupsd.stop()];
  try {
    const started = performance.now();
    for (let i = 1; i <= many; i++)
      await withRetries(() => addEverywhereQueue(cupsd, `bench-${i}`, printer.uri));
    console.log(`setup   ${many} CUPS queues in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const emulator = await startEmulatorPart(join(work, 'emulator'));
    stops.unshift(() => emulator.part.stop());
    const { url } = emulator;
    const one = await idleAgent(work, url, cupsd.server, 1);
    console.log(
      `idle    agent with 1 printer:   RSS ${mb(one.rss)} (${one.heapNote}), V8 heap used ${mb(one.heapUsed)}`,
    );
    const all = await idleAgent(work, url, cupsd.server, many);
    console.log(
      `idle    agent with ${many} printers: RSS ${mb(all.rss)} (${all.heapNote}), V8 heap used ${mb(all.heapUsed)}`,
    );
    const perPrinter = (a: number, b: number) => `${((b - a) / (many - 1) / 1024).toFixed(0)} KB`;
    console.log(
      `idle    each extra printer: RSS ${perPrinter(one.rss, all.rss)}, heap ${perPrinter(one.heapUsed, all.heapUsed)}`,
    );
    console.log(`ratio ${(all.rss / one.rss).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
