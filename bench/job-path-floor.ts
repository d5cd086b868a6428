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
 *   ipptool  ipptool's batch of the same Print-Jobs on one connection (the C client's floor);
 *   bare-exactly-once  the floor of what exactly-once needs in bare Node, none of the agent's code
 *            (support/bare-floor-child.ts): the offers and their inline documents from the
 *            channel at protocol 3, the claim and the event frames, the five job commits and
 *            the batch answers' commits in a WAL database with the agent's pragmas, Create-Job +
 *            Send-Document + Get-Job-Attributes over one kept-open raw socket;
 *   bare-print-job     the cheapest job in bare Node: the inline document, one Print-Job, the
 *            `completed` event in batches; no claim, no commits.
 * Each as CPU ms per job and as a multiple of ipptool's; last, the agent's figure as a multiple of
 * each. The printer keeps every document (-k): after each bare line the bench counts the
 * documents of its jobs at the printer (all its jobs, warm-up included, each of the document's
 * size) and fails when one is missing. With two cores the agent, the loop, the bare lines, the
 * printer half, the bare client, ipptool and the printer run on core 0, the emulator and the app
 * on core 1. The four lines with the cloud run in the order agent, bare-exactly-once, loop,
 * bare-print-job (the agent's own code and bare Node alternated).
 *
 *   npm run bench:floor    (BENCH_JOBS=200, BENCH_WARMUP_JOBS=200, BENCH_CONCURRENCY=16;
 *                           BENCH_ENTRY=dist runs the agent from dist/; BENCH_PROFILE_DIR=<dir>
 *                           writes a V8 CPU profile of every node process there, the pid of
 *                           each line printed to find its file; BENCH_SQL_PROFILE=1 runs the
 *                           agent with its statement profile and prints every SQL statement's
 *                           runs and µs per job, the transactions' parts and the WAL pages
 *                           per job of the measured jobs, support/sql-profile-report.ts; that
 *                           run measures ipptool and the agent only)
 * The lines with the cloud are measured after their warm-up jobs by /proc/<pid>/stat; the lines
 * also give the connector requests and the channel's claims and event batches per job (emulator
 * log: `request completed` and `channel request answered` lines) and the IPP requests per job
 * (ippeveprinter's log). Between two lines with the cloud the bench waits out the emulator's
 * PrepareUpload rate window (600 a minute per user) when their jobs would not fit in it, so
 * warm-up + measured jobs must stay within 600. The load average is printed before and after:
 * the figures of a loaded machine compare within one run only. Last: `durability_share` ((agent - loop) / agent) and
 * `ratio` (ipptool's CPU per job over the agent's).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../src/lib/abort.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { writePdf } from '../test/support/pdf.js';
import { startBenchAgent } from './support/agent-part.js';
import { runIpptoolBatch, writeBatchTest } from './support/ipptool-baseline.js';
import { runJobs, signIn, waitForPrinter } from './support/job-runs.js';
import { nodeChild, outputOf, stopChild } from './support/floor-children.js';
import { checkDocumentsAtPrinter } from './support/printer-documents.js';
import { pinPlan, pinProcess } from './support/pinning.js';
import { printProfile, takeDump } from './support/sql-profile-report.js';
import { cpuSecondsOf, startEmulatorPart } from './support/processes.js';
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
        `${name.padEnd(18)}CPU ${ms.toFixed(2)} ms/job = ${(ms / ipptoolMs).toFixed(1)} x ipptool; ${rest}`,
      );
    line(
      'ipptool',
      ipptoolMs,
      `${direct.jobsPerSecond.toFixed(1)} jobs/s${pin ? ` on core ${pin.agentCore}` : ''}`,
    );

    /** A child that prints its own CPU for the jobs (after its warm-up): its line and figure. */
    const childLeg = async (name: string, script: string, what: string) => {
      const child = nodeChild(script, [printer.uri, onePage, String(jobs), String(warmupJobs)], core);
      const result = JSON.parse((await outputOf(child, /}\s*$/)).trim()) as {
        seconds: number;
        cpuSeconds: number;
      };
      const ms = (result.cpuSeconds / jobs) * 1000;
      line(name, ms, `${(jobs / result.seconds).toFixed(1)} jobs/s (${what})`);
      return ms;
    };
    // The statement profile slows the agent down: its run measures the agent's line alone.
    const profiling = Boolean(process.env.BENCH_SQL_PROFILE);
    const bareMs = profiling
      ? Number.NaN
      : await childLeg('bare', 'ipp-floor-child.ts', 'node + undici, Print-Job encoded once');
    const printerMs = profiling
      ? Number.NaN
      : await childLeg(
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
    const sqlProfile = profiling ? join(work, 'sql-profile.json') : undefined;
    const agent = await startBenchAgent(
      work,
      emulator.url,
      { name: printerName, uri: printer.uri },
      (pid) => {
        if (pin) pinProcess(pid, pin.agentCore);
      },
      sqlProfile ? { PRINTRELAY_SQL_PROFILE: sqlProfile } : {},
    );
    stops.unshift(() => agent.part.stop());
    if (process.env.BENCH_PROFILE_DIR)
      console.log(`agent runs as pid ${agent.part.pid} (its profile's name)`);
    const app = await signIn(emulator.url);
    stops.unshift(() => app.close());
    const printerId = await waitForPrinter(app.sfapi, printerName);

    /**
     * Warm-up, then the measured jobs; the CPU per job of `pid` and the requests per job. With
     * `profile` (the agent's statement profile file) its figures for the measured jobs printed.
     */
    const measure = async (pid: number, profile?: string) => {
      await runJobs(app.sfapi, onePage, printerId, warmupJobs, concurrency);
      await sleep(500);
      const dumpBefore = profile ? await takeDump(pid, profile, 1) : undefined;
      const before = { cpu: cpuSecondsOf(pid), cloud: requests.snapshot(), ipp: ipp.snapshot() };
      const { seconds } = await runJobs(app.sfapi, onePage, printerId, jobs, concurrency);
      // The last events leave in the next batch; counted with the jobs they belong to.
      await sleep(500);
      const after = { cpu: cpuSecondsOf(pid), cloud: requests.snapshot(), ipp: ipp.snapshot() };
      if (profile && dumpBefore) printProfile(dumpBefore, await takeDump(pid, profile, 2), jobs);
      return {
        ms: ((after.cpu - before.cpu) / jobs) * 1000,
        rest: `${(jobs / seconds).toFixed(1)} jobs/s; connector requests and channel requests per job ${perJobPhrase(before.cloud, after.cloud, jobs)}; IPP requests per job ${perJobPhrase(before.ipp, after.ipp, jobs, ['connection'])}`,
      };
    };

    const ours = await measure(agent.part.pid, sqlProfile);
    line('agent', ours.ms, ours.rest);
    if (profiling) return;
    let lastLegDone = Date.now();
    await agent.part.stop();
    const figures: [string, number][] = [
      ['ipptool', ipptoolMs],
      ['bare', bareMs],
      ['printer', printerMs],
    ];

    /**
     * A line with the cloud after the agent's: its child started on the agent's identity, the
     * emulator's upload window waited out, then measured as the agent was; the child stopped.
     */
    const cloudLeg = async (
      name: string,
      script: string,
      args: string[],
      check?: (total: number) => void,
    ) => {
      const child = nodeChild(script, args, core);
      stops.unshift(() => stopChild(child));
      if (process.env.BENCH_PROFILE_DIR) console.log(`${name} runs as pid ${child.pid} (its profile's name)`);
      await outputOf(child, /ready/);
      // The uploads of the line before leave the emulator's rate window before this line's begin
      // (when two lines' uploads would not fit in it).
      if (2 * (warmupJobs + jobs) > UPLOAD_RATE.max)
        await sleep(Math.max(0, lastLegDone + UPLOAD_RATE.windowMs + 1000 - Date.now()));
      const result = await measure(child.pid as number);
      lastLegDone = Date.now();
      await stopChild(child);
      check?.(warmupJobs + jobs);
      line(name, result.ms, result.rest);
      figures.push([name, result.ms]);
      return result.ms;
    };
    const pdfSize = statSync(onePage).size;
    const bareLeg = (name: string, mode: string) =>
      cloudLeg(
        name,
        'bare-floor-child.ts',
        [mode, emulator.url, join(work, 'agent'), printer.uri, join(work, `${name}.db`), name],
        (total) => checkDocumentsAtPrinter(printer.spoolDir, name, pdfSize, total),
      );

    await bareLeg('bare-exactly-once', 'exactly-once');
    const loopMs = await cloudLeg('loop', 'floor-loop-child.ts', [
      join(work, 'agent.yaml'),
      join(work, 'agent'),
      printer.uri,
    ]);
    await bareLeg('bare-print-job', 'print-job');
    console.log(`load    average ${load()} at the end`);
    console.log(
      `agent   CPU per job as a multiple of: ${figures.map(([name, ms]) => `${name} ${(ours.ms / ms).toFixed(1)} x`).join(', ')}`,
    );
    console.log(`durability_share ${((ours.ms - loopMs) / ours.ms).toFixed(3)}`);
    console.log(`ratio ${(ipptoolMs / ours.ms).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
