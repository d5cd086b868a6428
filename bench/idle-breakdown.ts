/**
 * The idle agent's resident memory broken down by cause (docs/performance.md, *Round 4: the idle
 * agent*): a real `printrelay agent` with BENCH_PRINTERS (50) CUPS queues, idle and settled as in
 * bench:idle, and beside it an empty node process with the same flags, both read from
 * /proc/<pid>/smaps by mapping (bench/support/memory-map.ts); then, in the agent, V8's own figures
 * and a heap snapshot summed by kind, by module and by constructor
 * (bench/support/heap-snapshot-summary.ts), through a preloaded probe
 * (bench/support/memory-probe.cjs, which adds a signal handler and nothing else until asked).
 *
 *   npm run build && BENCH_ENTRY=dist npm run bench:idle-breakdown
 *   (BENCH_PRINTERS=50, BENCH_SETTLE_S=15, BENCH_IDLE_VIA=cups|ipp, BENCH_TOP=25 rows per table)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../src/lib/abort.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { summarizeHeapSnapshot } from './support/heap-snapshot-summary.js';
import { idleAgent, startIdlePrinters } from './support/idle-agent.js';
import { type MemoryShare, memoryByCause } from './support/memory-map.js';
import { agentNodeEnv, agentNodeFlags, mb, startEmulatorPart } from './support/processes.js';

const many = Number(process.env.BENCH_PRINTERS ?? 50);
const settleS = Number(process.env.BENCH_SETTLE_S ?? 15);
const top = Number(process.env.BENCH_TOP ?? 25);
const probe = join(import.meta.dirname, 'support', 'memory-probe.cjs');

const pad = (text: string, width: number) => text.padEnd(width);
const num = (bytes: number) => mb(bytes).padStart(9);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`.padStart(9);

async function emptyNodeByCause(): Promise<Map<string, MemoryShare>> {
  const child = spawn(process.execPath, [...agentNodeFlags(), '-e', 'setInterval(() => {}, 1e6)'], {
    stdio: 'ignore',
    env: { ...process.env, ...agentNodeEnv() },
  });
  try {
    await sleep(2000); // on a loaded machine node may still be starting at 500 ms
    return memoryByCause(child.pid as number);
  } finally {
    child.kill('SIGKILL');
  }
}

function printCauses(agent: Map<string, MemoryShare>, empty: Map<string, MemoryShare>): void {
  console.log(`causes  ${pad('cause', 52)}  agent RSS  private      PSS  | empty node RSS  private`);
  const causes = [...new Set([...agent.keys(), ...empty.keys()])].sort(
    (a, b) => (agent.get(b)?.private ?? 0) - (agent.get(a)?.private ?? 0),
  );
  const zero = { rss: 0, private: 0, pss: 0, mappings: 0 };
  const sum = { ...zero };
  const emptySum = { ...zero };
  for (const cause of causes) {
    const a = agent.get(cause) ?? zero;
    const e = empty.get(cause) ?? zero;
    for (const key of ['rss', 'private', 'pss'] as const) {
      sum[key] += a[key];
      emptySum[key] += e[key];
    }
    console.log(
      `causes  ${pad(cause, 52)} ${num(a.rss)} ${num(a.private)} ${num(a.pss)} | ${num(e.rss)}      ${num(e.private)}`,
    );
  }
  console.log(
    `causes  ${pad('total', 52)} ${num(sum.rss)} ${num(sum.private)} ${num(sum.pss)} | ${num(emptySum.rss)}      ${num(emptySum.private)}`,
  );
}

function printV8(file: string): void {
  const figures = JSON.parse(readFileSync(file, 'utf8')) as {
    heap: Record<string, number>;
    spaces: { space_name: string; space_used_size: number; physical_space_size: number }[];
    code: Record<string, number>;
  };
  let physical = 0;
  for (const space of figures.spaces) {
    physical += space.physical_space_size;
    console.log(
      `v8      ${pad(space.space_name, 26)} used ${num(space.space_used_size)}  resident ${num(space.physical_space_size)}`,
    );
  }
  console.log(
    `v8      ${pad('all spaces', 26)} used ${num(figures.heap.used_heap_size ?? 0)}  resident ${num(physical)}`,
  );
  const { heap, code } = figures;
  console.log(
    `v8      malloced ${mb(heap.malloced_memory ?? 0)} (peak ${mb(heap.peak_malloced_memory ?? 0)}), external ${mb(heap.external_memory ?? 0)}; code statistics: bytecode and metadata ${mb(code.bytecode_and_metadata_size ?? 0)}, machine code and metadata ${mb(code.code_and_metadata_size ?? 0)}, external script source ${mb(code.external_script_source_size ?? 0)}`,
  );
}

function printSnapshot(file: string): void {
  const summary = summarizeHeapSnapshot(file);
  console.log(`heap    snapshot: ${mb(summary.total)} live`);
  for (const [kind, size] of [...summary.byKind].sort((a, b) => b[1] - a[1]))
    console.log(`kind    ${pad(kind, 50)} ${num(size)}`);
  const modules = [...summary.byModule].sort(
    (a, b) => b[1].source + b[1].compiled - a[1].source - a[1].compiled,
  );
  console.log(`module  ${pad('group', 34)}  scripts    source  compiled`);
  for (const [group, m] of modules.slice(0, top))
    console.log(
      `module  ${pad(group, 34)} ${String(m.scripts).padStart(8)} ${kb(m.source)} ${kb(m.compiled)}`,
    );
  const rest = modules.slice(top);
  const restSum = (key: 'source' | 'compiled') => rest.reduce((s, [, m]) => s + m[key], 0);
  if (rest.length > 0)
    console.log(
      `module  ${pad(`${rest.length} more groups`, 34)} ${''.padStart(8)} ${kb(restSum('source'))} ${kb(restSum('compiled'))}`,
    );
  const constructors = [...summary.byConstructor].sort((a, b) => b[1].size - a[1].size);
  for (const [name, c] of constructors.slice(0, top))
    console.log(`object  ${pad(name.slice(0, 40), 40)} ${String(c.count).padStart(7)} ${kb(c.size)}`);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-breakdown-'));
  const printer = await startIppEvePrinter({ name: 'Bench Breakdown Printer' });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  try {
    const printers = await startIdlePrinters(printer.uri, many);
    stops.unshift(() => printers.stop());
    const emulator = await startEmulatorPart(join(work, 'emulator'));
    stops.unshift(() => emulator.part.stop());
    const out = join(work, 'probe');
    let agentCauses = new Map<string, MemoryShare>();
    const idle = await idleAgent(work, emulator.url, printers.uris, many, settleS, undefined, {
      nodeFlags: ['--require', probe],
      env: { BENCH_MEMORY_PROBE: out },
      async onSettled(pid) {
        agentCauses = memoryByCause(pid);
        process.kill(pid, 'SIGUSR2');
        const deadline = Date.now() + 120_000;
        while (!existsSync(`${out}.done`) && Date.now() < deadline) await sleep(200);
      },
    });
    console.log(`idle    agent with ${many} printers: RSS ${mb(idle.rss)} (${idle.note})`);
    printCauses(agentCauses, await emptyNodeByCause());
    printV8(`${out}.json`);
    printSnapshot(`${out}.heapsnapshot`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
