/**
 * The floor of the small-document job path's cost (issue 21): in one run, against the same
 * ippeveprinter and the same emulator, the CPU per one-page job of
 *   agent    the agent as it is (`printrelay agent`, ledger, outbox, spool file);
 *   loop     the same loop without durability, from the agent's own parts (support/
 *            floor-loop-child.ts), on connector protocol 3 as the agent: offer with its inline
 *            document over the connector channel, a `claim` message (the claiming download when
 *            a document is not inline), the agent's IppBackend (Create-Job + Send-Document,
 *            Get-Job-Attributes on the agent's schedule), the events in batches on the channel;
 *            no SQLite, no outbox, no spool file;
 *   printer  the loop's printer half alone (support/printer-floor-child.ts): the agent's
 *            IppBackend, the same requests at the printer, no cloud;
 *   bare     node + undici sending the same Print-Job, encoded once, to the printer
 *            (support/ipp-floor-child.ts): no cloud, no job logic;
 *   ipptool  ipptool's batch of the same Print-Jobs on one connection (the C client's floor).
 * Each as CPU ms per job and as a multiple of ipptool's. With two cores the agent, the loop, the
 * printer half, the bare client, ipptool and the printer run on core 0, the emulator and the app
 * on core 1.
 *
 *   npm run bench:floor    (BENCH_JOBS=200, BENCH_WARMUP_JOBS=200, BENCH_CONCURRENCY=16;
 *                           BENCH_ENTRY=dist runs the agent from dist/)
 * The agent and the loop are measured after their warm-up jobs by /proc/<pid>/stat; the lines
 * also give the connector requests per job (emulator log) and the IPP requests per job
 * (ippeveprinter's log). Between the agent's jobs and the loop's the bench waits out the
 * emulator's PrepareUpload rate window (600 a minute per user), so warm-up + measured jobs must
 * stay within 600. The load average is printed before and after: the figures of a loaded
 * machine compare within one run only. Last: `durability_share` ((agent - loop) / agent) and
 * `ratio` (ipptool's CPU per job over the agent's).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../src/lib/abort.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { writePdf } from '../test/support/pdf.js';
import { startBenchAgent } from './support/agent-part.js';
import { runIpptoolBatch, writeBatchTest } from './support/ipptool-baseline.js';
import { runJobs, signIn, waitForPrinter } from './support/job-runs.js';
import { onCore, pinPlan, pinProcess } from './support/pinning.js';
import { agentNodeFlags, cpuSecondsOf, startEmulatorPart } from './support/processes.js';
import { countRequests, ippCounter, perJobPhrase } from './support/request-counts.js';

const jobs = Number(process.env.BENCH_JOBS ?? 200);
const warmupJobs = Number(process.env.BENCH_WARMUP_JOBS ?? 200);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const printerName = 'Floor Printer';
/** The emulator takes at most 600 PrepareUpload calls of one user in 60 s (upload-limits.ts). */
const UPLOAD_RATE = { max: 600, windowMs: 60_000 };
if (jobs + warmupJobs > UPLOAD_RATE.max)
  throw new Error(
    `BENCH_JOBS + BENCH_WARMUP_JOBS must be at most ${UPLOAD_RATE.max} (the emulator's PrepareUpload calls per user in 60 s), got ${jobs + warmupJobs}`,
  );
const cores = availableParallelism();
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A node process with the agent's flags running `script args` through tsx (on `core` when given). */
function nodeChild(script: string, args: string[], core: number | undefined): ChildProcess {
  const [command, argv] = onCore(core, process.execPath, [
    ...agentNodeFlags(),
    '--import',
    'tsx',
    join(import.meta.dirname, 'support', script),
    ...args,
  ]);
  return spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the child's stdout once `pattern` shows in it; rejects when it exits first. */
function outputOf(child: ChildProcess, pattern: RegExp): Promise<string> {
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (pattern.test(out)) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`child exited ${code}: ${err.slice(-1500)}`)));
  });
}

async function main(): Promise<void> {
  console.log(`load    average ${load()} at the start (${cores} cores)`);
  const pin = pinPlan();
  const core = pin?.agentCore;
  const work = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const ipp = ippCounter();
  const printer = await startIppEvePrinter({
    name: 'Floor IPP Everywhere',
    extraArgs: ['-v'],
    onLogLine: ipp.onLogLine,
  });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  try {
    if (pin) pinProcess(printer.pid, pin.agentCore);
    const onePage = join(work, 'one.pdf');
    await writePdf(onePage, 1, 'PrintRelay floor benchmark');

    const direct = await runIpptoolBatch(
      printer.uri,
      writeBatchTest(work, jobs, onePage, 'application/pdf'),
      jobs,
      core,
    );
    const ipptoolMs = (direct.cpuSeconds / jobs) * 1000;
    const line = (name: string, ms: number, rest: string) =>
      console.log(
        `${name.padEnd(8)}CPU ${ms.toFixed(2)} ms/job = ${(ms / ipptoolMs).toFixed(1)} x ipptool; ${rest}`,
      );
    line(
      'ipptool',
      ipptoolMs,
      `${direct.jobsPerSecond.toFixed(1)} jobs/s${pin ? ` on core ${pin.agentCore}` : ''}`,
    );

    /** A child that prints its own CPU for the jobs (after its warm-up): its line. */
    const childLeg = async (name: string, script: string, what: string) => {
      const child = nodeChild(script, [printer.uri, onePage, String(jobs), String(warmupJobs)], core);
      const result = JSON.parse((await outputOf(child, /}\s*$/)).trim()) as {
        seconds: number;
        cpuSeconds: number;
      };
      line(name, (result.cpuSeconds / jobs) * 1000, `${(jobs / result.seconds).toFixed(1)} jobs/s (${what})`);
    };
    await childLeg('bare', 'ipp-floor-child.ts', 'node + undici, Print-Job encoded once');
    await childLeg(
      'printer',
      'printer-floor-child.ts',
      "the loop's printer half: the agent's IppBackend, no cloud",
    );

    const emulator = await startEmulatorPart(join(work, 'emulator'), ['--log-level', 'info']);
    stops.unshift(() => emulator.part.stop());
    if (pin) {
      pinProcess(emulator.part.pid, pin.cloudCore);
      pinProcess(process.pid, pin.cloudCore);
    }
    const requests = countRequests(emulator.part.child.stdout as NodeJS.ReadableStream);
    const agent = await startBenchAgent(
      work,
      emulator.url,
      { name: printerName, uri: printer.uri },
      (pid) => {
        if (pin) pinProcess(pid, pin.agentCore);
      },
    );
    stops.unshift(() => agent.part.stop());
    const app = await signIn(emulator.url);
    stops.unshift(() => app.close());
    const printerId = await waitForPrinter(app.sfapi, printerName);

    /** Warm-up, then the measured jobs; the CPU per job of `pid` and the requests per job. */
    const measure = async (pid: number) => {
      await runJobs(app.sfapi, onePage, printerId, warmupJobs, concurrency);
      await sleep(500);
      const before = { cpu: cpuSecondsOf(pid), cloud: requests.snapshot(), ipp: ipp.snapshot() };
      const { seconds } = await runJobs(app.sfapi, onePage, printerId, jobs, concurrency);
      // The last events leave in the next batch; counted with the jobs they belong to.
      await sleep(500);
      const after = { cpu: cpuSecondsOf(pid), cloud: requests.snapshot(), ipp: ipp.snapshot() };
      return {
        ms: ((after.cpu - before.cpu) / jobs) * 1000,
        rest: `${(jobs / seconds).toFixed(1)} jobs/s; connector requests per job ${perJobPhrase(before.cloud, after.cloud, jobs)}; IPP requests per job ${perJobPhrase(before.ipp, after.ipp, jobs, ['connection'])}`,
      };
    };

    const ours = await measure(agent.part.pid);
    line('agent', ours.ms, ours.rest);
    const agentDone = Date.now();
    await agent.part.stop();

    const loop = nodeChild(
      'floor-loop-child.ts',
      [join(work, 'agent.yaml'), join(work, 'agent'), printer.uri],
      core,
    );
    stops.unshift(async () => {
      if (loop.exitCode !== null) return;
      const exited = new Promise((resolve) => loop.once('exit', resolve));
      loop.kill('SIGTERM');
      await exited;
    });
    await outputOf(loop, /ready/);
    // The agent's uploads leave the emulator's rate window before the loop's begin.
    await sleep(Math.max(0, agentDone + UPLOAD_RATE.windowMs + 1000 - Date.now()));
    const floor = await measure(loop.pid as number);
    line('loop', floor.ms, floor.rest);
    console.log(`load    average ${load()} at the end`);
    console.log(`durability_share ${((ours.ms - floor.ms) / ours.ms).toFixed(3)}`);
    console.log(`ratio ${(ipptoolMs / ours.ms).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
