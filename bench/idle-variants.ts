/**
 * A/B of the idle agent's memory under other node flags or environment, in one run: the agent
 * with BENCH_PRINTERS (50) CUPS queues, settled as in bench:idle, once per variant per round,
 * the variants alternating back to back for BENCH_ROUNDS (3) rounds so the machine's load falls
 * on all of them alike. Each variant is `label|node flags|VAR=value ...|entry` (flags and
 * environment added to the service's; entry: another build's `cli/main.js` for the agent, the
 * emulator stays on BENCH_ENTRY's), variants separated by `;`; the first is the baseline.
 *
 *   npm run build && BENCH_ENTRY=dist BENCH_VARIANTS='service||;arena1||MALLOC_ARENA_MAX=1' \
 *     npm run bench:idle-variants
 * BENCH_WINDOW_S (0) reads private memory and PSS a second apart over that window and keeps the
 * median (60 covers one printer sync). Prints each reading (RSS, private, PSS, V8 heap in use),
 * then each variant's medians and its private memory against the baseline's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../src/lib/abort.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { idleAgent, startIdlePrinters } from './support/idle-agent.js';
import { parseVariants } from './support/idle-variant-spec.js';
import { mb, privateMemoryOf, startEmulatorPart } from './support/processes.js';

interface Reading {
  rss: number;
  private: number;
  pss: number;
  heap: number;
}

const many = Number(process.env.BENCH_PRINTERS ?? 50);
const settleS = Number(process.env.BENCH_SETTLE_S ?? 15);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const variants = parseVariants(process.env.BENCH_VARIANTS ?? 'service||');

const windowS = Number(process.env.BENCH_WINDOW_S ?? 0);

/**
 * Private memory and PSS of `pid`: one reading, or with BENCH_WINDOW_S the medians of readings
 * a second apart over that window (60: one printer sync period, whose burst moves the heap).
 */
async function windowMedian(pid: number): Promise<{ private: number; pss: number }> {
  const readings = [privateMemoryOf(pid)];
  for (let s = 1; s < windowS; s++) {
    await sleep(1000);
    readings.push(privateMemoryOf(pid));
  }
  return { private: median(readings.map((r) => r.private)), pss: median(readings.map((r) => r.pss)) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-variants-'));
  const printer = await startIppEvePrinter({ name: 'Bench Variants Printer' });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  const readings = new Map<string, Reading[]>(variants.map((v) => [v.label, []]));
  try {
    const printers = await startIdlePrinters(printer.uri, many);
    stops.unshift(() => printers.stop());
    const emulator = await startEmulatorPart(join(work, 'emulator'));
    stops.unshift(() => emulator.part.stop());
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        let pages = { private: 0, pss: 0 };
        const idle = await idleAgent(work, emulator.url, printers.uris, many, settleS, undefined, {
          nodeFlags: variant.flags,
          env: variant.env,
          ...(variant.entry ? { entry: variant.entry } : {}),
          async onSettled(pid) {
            pages = await windowMedian(pid);
          },
        });
        const reading = { rss: idle.rss, private: pages.private, pss: pages.pss, heap: idle.heapUsed };
        readings.get(variant.label)?.push(reading);
        console.log(
          `round ${round} ${variant.label.padEnd(14)} RSS ${mb(reading.rss)}, private ${mb(reading.private)}, PSS ${mb(reading.pss)}, V8 heap used ${mb(reading.heap)} (load ${loadavg()[0]?.toFixed(1)})`,
        );
      }
    }
    const base = median((readings.get(variants[0]?.label ?? '') ?? []).map((r) => r.private));
    for (const variant of variants) {
      const of = (key: keyof Reading) => median((readings.get(variant.label) ?? []).map((r) => r[key]));
      console.log(
        `median  ${variant.label.padEnd(14)} RSS ${mb(of('rss'))}, private ${mb(of('private'))} (${mb(of('private') - base)} against ${variants[0]?.label}), PSS ${mb(of('pss'))}, V8 heap used ${mb(of('heap'))}`,
      );
    }
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
