/**
 * End-to-end benchmark: N one-page PDF jobs through /sfapi -> emulator -> agent -> ippeveprinter,
 * against the same N jobs sent straight to the same ippeveprinter by ONE ipptool run on ONE
 * connection, measured in the same run. Emulator and agent run as separate processes, so the
 * memory and CPU of each are read on their own (/proc). See docs/performance.md.
 *
 * Pinned mode (the default with >= 2 cores and taskset; BENCH_PIN=0 turns it off): the agent and
 * the printer run on core 0, the emulator and the app (this process) on core 1, and a second
 * direct run gives ipptool and the printer core 0 only. `agent_ratio` is our throughput against
 * that direct run: what the agent reaches on a core of its own beside the printer.
 *
 *   npm run bench:e2e     (BENCH_JOBS=200, BENCH_WARMUP_JOBS=300, BENCH_BIG_MB=1024, BENCH_CONCURRENCY=16,
 *                          BENCH_IDLE_PRINTERS=50, BENCH_IDLE_VIA=cups, BENCH_SETTLE_S=15,
 *                          BENCH_SCRAPE_HZ=0, BENCH_PIN)
 *   BENCH_SLOW_WEBHOOKS=3 npm run bench:e2e    the same with 3 webhook endpoints configured whose
 *     HTTPS receivers take 2 s per answer (BENCH_WEBHOOK_DELAY_MS): delivery must not slow printing
 * Prints throughput of both paths, p50/p95 latency of ours, CPU per job of every process (and of
 * ipptool in the direct run), the agent's time to ready and peak RSS, the large-document rate
 * against ipptool, the idle RSS of an agent with BENCH_IDLE_PRINTERS printers, `agent_ratio` when
 * pinned, and last a line `ratio <ours/direct throughput>` (direct: ipptool on any core).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { writePdf } from '../test/support/pdf.js';
import { idleAgent, startIdlePrinters } from './support/idle-agent.js';
import { runIpptoolBatch, writeBatchTest } from './support/ipptool-baseline.js';
import { runJobs } from './support/job-runs.js';
import { largeDocumentRun } from './support/large-document.js';
import { pinPlan, pinProcess } from './support/pinning.js';
import {
  agentNodeEnv,
  agentNodeFlags,
  cpuSecondsOf,
  emptyNodeMemory,
  mb,
  memoryOf,
  pagesPhrase,
  privateMemoryOf,
  samplePages,
} from './support/processes.js';
import { PRINTER_NAME, printPathSettings, startPrintPath } from './support/print-path.js';
import { scrapedRun } from './support/scrape.js';
import { percentile } from './support/stats.js';

const { jobs, warmupJobs, concurrency, slowWebhooks, webhookDelayMs } = printPathSettings(0);
const bigMb = Number(process.env.BENCH_BIG_MB ?? 1024);
const scrapeHz = Number(process.env.BENCH_SCRAPE_HZ ?? 0);
const idlePrinters = Number(process.env.BENCH_IDLE_PRINTERS ?? 50);
const settleS = Number(process.env.BENCH_SETTLE_S ?? 15);
// read before this process pins itself to one core (availableParallelism follows the affinity)
const cores = availableParallelism();

const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const perJob = (seconds: number) => `${((seconds / jobs) * 1000).toFixed(2)} ms/job`;

/** The idle RSS of an agent with BENCH_IDLE_PRINTERS CUPS queues (bench/support/idle-agent.ts). */
async function idleRun(
  work: string,
  url: string,
  printerUri: string,
  core: number | undefined,
  stops: (() => Promise<void>)[],
): Promise<void> {
  const printers = await startIdlePrinters(printerUri, idlePrinters);
  stops.unshift(() => printers.stop());
  const idle = await idleAgent(work, url, printers.uris, idlePrinters, settleS, (pid) => {
    if (core !== undefined) pinProcess(pid, core);
  });
  console.log(
    `idle    agent with ${idlePrinters} printers (${printers.setup}): RSS ${mb(idle.rss)} (${idle.note}), V8 heap used ${mb(idle.heapUsed)}`,
  );
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  const printer = await startIppEvePrinter({ name: 'Bench IPP Everywhere' });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  const pin = pinPlan();
  try {
    const onePage = join(work, 'one.pdf');
    await writePdf(onePage, 1, 'PrintRelay benchmark');
    const batch = writeBatchTest(work, jobs, onePage, 'application/pdf');
    const printerCpu = () => cpuSecondsOf(printer.pid, { withChildren: true });

    // The direct run as before pinning: ipptool and the printer on any core.
    let printerBefore = printerCpu();
    const baseline = await runIpptoolBatch(printer.uri, batch, jobs);
    console.log(
      `direct  ipptool, one connection, any core: ${jobs} jobs in ${baseline.seconds.toFixed(2)} s = ${baseline.jobsPerSecond.toFixed(1)} jobs/s; CPU ipptool ${perJob(baseline.cpuSeconds)}, printer ${perJob(printerCpu() - printerBefore)}`,
    );
    let pinned: Awaited<ReturnType<typeof runIpptoolBatch>> | undefined;
    if (pin) {
      pinProcess(printer.pid, pin.agentCore);
      printerBefore = printerCpu();
      pinned = await runIpptoolBatch(printer.uri, batch, jobs, pin.agentCore);
      console.log(
        `direct  ipptool and printer on core ${pin.agentCore}: ${jobs} jobs in ${pinned.seconds.toFixed(2)} s = ${pinned.jobsPerSecond.toFixed(1)} jobs/s; CPU ipptool ${perJob(pinned.cpuSeconds)}, printer ${perJob(printerCpu() - printerBefore)}`,
      );
      pinProcess(process.pid, pin.cloudCore);
    }

    const { emulator, agent, app, printerId, receivers } = await startPrintPath({
      work,
      printer: { name: PRINTER_NAME, uri: printer.uri },
      pin,
      slowWebhooks,
      webhookDelayMs,
      stops,
    });
    const { url } = emulator;
    console.log(`agent   start to ready (/readyz 200): ${agent.readySeconds.toFixed(2)} s`);
    // The agent's cost before any job (its modules loaded, registered, one printer), beside the
    // peak during the jobs below: how much of the peak the jobs add.
    const readyMemory = memoryOf(agent.part.pid);
    console.log(
      `memory  agent ready, before the jobs: RSS ${mb(readyMemory.rss)} (peak so far ${mb(readyMemory.peak)}; ${pagesPhrase(privateMemoryOf(agent.part.pid))})`,
    );

    // Warm-up: a daemon's steady state is what counts. The JIT settles over the first few hundred
    // jobs (with 10 warm-up jobs the agent used 9.4 ms of CPU per job, after 400 it used 7.8 ms),
    // so the measured jobs start after BENCH_WARMUP_JOBS of them.
    await runJobs(app.sfapi, onePage, printerId, warmupJobs, concurrency);
    const cpuNow = () => ({
      agent: cpuSecondsOf(agent.part.pid),
      emulator: cpuSecondsOf(emulator.part.pid),
      printer: printerCpu(),
      app: ownCpuSeconds(),
    });
    const before = cpuNow();
    const sampler = samplePages(agent.part.pid);
    const ours = await runJobs(app.sfapi, onePage, printerId, jobs, concurrency);
    const jobPeak = sampler.stop();
    const after = cpuNow();
    const cpu = {
      agent: after.agent - before.agent,
      emulator: after.emulator - before.emulator,
      printer: after.printer - before.printer,
      app: after.app - before.app,
    };
    const oursRate = jobs / ours.seconds;
    console.log(
      `ours    /sfapi -> agent -> IPP${pin ? ' (pinned)' : ''}: ${jobs} jobs in ${ours.seconds.toFixed(2)} s = ${oursRate.toFixed(1)} jobs/s (${concurrency} submitters)`,
    );
    console.log(
      `ours    submit-to-completed latency: p50 ${percentile(ours.latencies, 50).toFixed(1)} ms, p95 ${percentile(ours.latencies, 95).toFixed(1)} ms`,
    );
    console.log(
      `cpu     agent ${perJob(cpu.agent)}, emulator ${perJob(cpu.emulator)}, app ${perJob(cpu.app)}, printer ${perJob(cpu.printer)} (on ${cores} cores)`,
    );
    if (pin) {
      const busy = (seconds: number) => `${((seconds / ours.seconds) * 100).toFixed(0)}%`;
      console.log(
        `cores   busy during the run: core ${pin.agentCore} (agent + printer) ${busy(cpu.agent + cpu.printer)}, core ${pin.cloudCore} (emulator + app) ${busy(cpu.emulator + cpu.app)}`,
      );
    }
    const agentPages = privateMemoryOf(agent.part.pid);
    console.log(
      `memory  agent peak RSS ${mb(memoryOf(agent.part.pid).peak)} (now ${mb(memoryOf(agent.part.pid).rss)}: ${pagesPhrase(agentPages)}); during the jobs peak private ${mb(jobPeak.private)}, peak PSS ${mb(jobPeak.pss)}; emulator peak RSS ${mb(memoryOf(emulator.part.pid).peak)}`,
    );
    const empty = await emptyNodeMemory(agentNodeFlags(), agentNodeEnv());
    console.log(
      `memory  empty node with the agent's flags (the floor): RSS ${mb(empty.rss)} (${pagesPhrase(empty)})`,
    );

    if (scrapeHz > 0) {
      await scrapedRun(
        { sfapi: app.sfapi, file: onePage, printerId, jobs, concurrency },
        { metricsUrl: `http://127.0.0.1:${agent.controlPort}/metrics`, hz: scrapeHz },
        { rate: oursRate, agentMsPerJob: (cpu.agent / jobs) * 1000, agentPid: agent.part.pid },
      );
    }
    if (bigMb > 0) {
      const largeRatio = await largeDocumentRun({
        work,
        megabytes: bigMb,
        onePage,
        sfapi: app.sfapi,
        printerId,
        printerUri: printer.uri,
        printerSpoolDir: printer.spoolDir,
        agentPid: agent.part.pid,
        emulatorPid: emulator.part.pid,
        core: pin?.agentCore,
      });
      console.log(`large_ratio ${largeRatio.toFixed(3)}`);
    }
    if (receivers.length > 0) {
      const got = receivers.map((r) => r.requests.length);
      console.log(
        `webhook ${receivers.length} endpoints answering in ${webhookDelayMs} ms: ${got.join(', ')} events received so far of ${warmupJobs + jobs + (bigMb > 0 ? 1 : 0)} jobs each (the rest stays queued)`,
      );
    }
    if (idlePrinters > 0) {
      // a failure here (cupsd, lpadmin) is reported and leaves the ratios above standing
      await idleRun(work, url, printer.uri, pin?.agentCore, stops).catch((error) =>
        console.log(`idle    not measured: ${error instanceof Error ? error.message : error}`),
      );
    }
    if (pinned) console.log(`agent_ratio ${(oursRate / pinned.jobsPerSecond).toFixed(3)}`);
    console.log(`ratio ${(oursRate / baseline.jobsPerSecond).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
