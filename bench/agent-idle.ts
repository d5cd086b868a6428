/**
 * Idle memory of the agent: resident memory (VmRSS) of a real `printrelay agent` process once it
 * has registered its printers and settled, with 1 and with BENCH_PRINTERS (50) configured
 * printers (bench/support/idle-agent.ts). The 1-printer agent is the baseline of the same run.
 *
 *   npm run bench:idle     (BENCH_PRINTERS=50, BENCH_SETTLE_S=15, BENCH_IDLE_VIA=cups|ipp)
 * Prints the RSS of both agents, the cost per extra printer, and last `ratio <50/1 RSS>`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { idleAgent, startIdlePrinters } from './support/idle-agent.js';
import {
  agentNodeEnv,
  agentNodeFlags,
  emptyNodeMemory,
  mb,
  pagesPhrase,
  startEmulatorPart,
} from './support/processes.js';

const many = Number(process.env.BENCH_PRINTERS ?? 50);
const settleS = Number(process.env.BENCH_SETTLE_S ?? 15);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-idle-'));
  const printer = await startIppEvePrinter({ name: 'Bench Idle Printer' });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  try {
    const printers = await startIdlePrinters(printer.uri, many);
    stops.unshift(() => printers.stop());
    console.log(`setup   ${printers.setup}`);
    const emulator = await startEmulatorPart(join(work, 'emulator'));
    stops.unshift(() => emulator.part.stop());
    const { url } = emulator;
    const one = await idleAgent(work, url, printers.uris, 1, settleS);
    console.log(
      `idle    agent with 1 printer:   RSS ${mb(one.rss)} (${one.note}), V8 heap used ${mb(one.heapUsed)}`,
    );
    const all = await idleAgent(work, url, printers.uris, many, settleS);
    console.log(
      `idle    agent with ${many} printers: RSS ${mb(all.rss)} (${all.note}), V8 heap used ${mb(all.heapUsed)}`,
    );
    const perPrinter = (a: number, b: number) => `${((b - a) / (many - 1) / 1024).toFixed(0)} KB`;
    console.log(
      `idle    each extra printer: RSS ${perPrinter(one.rss, all.rss)}, heap ${perPrinter(one.heapUsed, all.heapUsed)}`,
    );
    const empty = await emptyNodeMemory(agentNodeFlags(), agentNodeEnv());
    console.log(
      `idle    empty node with the agent's flags (the floor): RSS ${mb(empty.rss)} (${pagesPhrase(empty)})`,
    );
    console.log(`ratio ${(all.rss / one.rss).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
