/**
 * What one job costs the agent on the cloud side, and how fast a large document goes through:
 * N one-page PDF jobs through /sfapi -> emulator -> agent -> ippeveprinter after a warm-up, with
 * the emulator logging every request (info level) so the requests of the connector channel are
 * counted per job on the emulator's side; then one large document (BENCH_BIG_MB, default 1024)
 * timed leg by leg against ipptool sending the same file to the same printer.
 *
 *   npm run bench:agent-cost    (BENCH_JOBS=200, BENCH_WARMUP_JOBS=200, BENCH_CONCURRENCY=16,
 *                                BENCH_BIG_MB=1024; 0 skips the large document)
 * Prints the agent's CPU per job, the connector requests and channel requests (protocol 3's claims
 * and event batches) per job by kind, the IPP requests and
 * new connections per job at the printer (from ippeveprinter's verbose log), the large document's
 * upload / agent / whole rates and the CPU seconds per GiB of agent and emulator in each leg (with
 * BENCH_EMULATOR_NODE_FLAGS=--trace-gc also the emulator's collections in each leg), `agent_ratio <agent leg / direct ipptool rate>` and last
 * `ratio <whole path / direct ipptool rate>` of the large document.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { SfapiClient } from '../src/client/sfapi-client.js';
import { DEMO } from '../src/config/demo-seed.js';
import { sleep } from '../src/lib/abort.js';
import { demoCloudSection, demoSession } from '../test/support/demo-session.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { writePdf } from '../test/support/pdf.js';
import { printAndWait, waitForEnd } from '../test/support/whole-loop.js';
import { runIpptoolBatch, writeBatchTest } from './support/ipptool-baseline.js';
import { countRequests, ippCounter } from './support/request-counts.js';
import { writeLargeDocument } from './support/large-document.js';
import { collectionsBetween, countCollections } from './support/gc-trace.js';
import {
  agentNodeEnv,
  agentNodeFlags,
  cpuSecondsOf,
  emulatorNodeFlags,
  mb,
  startEmulatorPart,
  startPart,
} from './support/processes.js';

const jobs = Number(process.env.BENCH_JOBS ?? 200);
const warmupJobs = Number(process.env.BENCH_WARMUP_JOBS ?? 200);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const bigMb = Number(process.env.BENCH_BIG_MB ?? 1024);
const printerName = 'Cost Printer';

async function runJobs(sfapi: SfapiClient, file: string, printerId: string, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      next += 1;
      const { status } = await printAndWait(sfapi, file, {
        type: 'pdf',
        printerid: printerId,
        alias: 'cost.pdf',
      });
      if (status.jobstatus !== 0)
        throw new Error(`a job ended with ${status.jobstatus} ${status.jobstatusstring}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-cost-'));
  const ipp = ippCounter();
  const printer = await startIppEvePrinter({
    name: 'Cost IPP Everywhere',
    extraArgs: ['-v'],
    onLogLine: ipp.onLogLine,
  });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  try {
    const onePage = join(work, 'one.pdf');
    await writePdf(onePage, 1, 'PrintRelay cost benchmark');
    const emulator = await startEmulatorPart(join(work, 'emulator'), ['--log-level', 'info']);
    stops.unshift(() => emulator.part.stop());
    const requests = countRequests(emulator.part.child.stdout as NodeJS.ReadableStream);
    // With BENCH_EMULATOR_NODE_FLAGS=--trace-gc: the emulator's collections in each leg.
    const tracingGc = emulatorNodeFlags().includes('--trace-gc');
    const collections = countCollections(emulator.part.child.stdout as NodeJS.ReadableStream);
    const agentConfig = join(work, 'agent.yaml');
    writeFileSync(
      agentConfig,
      stringify({
        version: 1,
        cloud: demoCloudSection(emulator.url),
        log: { level: 'warn' },
        printers: [{ name: printerName, uri: printer.uri }],
      }),
    );
    const agent = await startPart(
      ['agent', '--config', agentConfig, '--data-dir', join(work, 'agent'), '--no-pretty'],
      null,
      60_000,
      agentNodeFlags(),
      { env: agentNodeEnv() },
    );
    stops.unshift(() => agent.part.stop());
    const { http } = await demoSession(emulator.url, DEMO.user, 'printing', 600_000);
    stops.unshift(() => http.close());
    const sfapi = new SfapiClient(http);
    let printerId: string | undefined;
    for (const deadline = Date.now() + 60_000; !printerId; await sleep(100)) {
      printerId = (await sfapi.getPrinters()).find((p) => p.name === printerName)?.id;
      if (Date.now() > deadline) throw new Error('the agent did not register the printer');
    }

    await runJobs(sfapi, onePage, printerId, warmupJobs);
    await sleep(500);
    const before = { cpu: cpuSecondsOf(agent.part.pid), counts: requests.snapshot(), ipp: ipp.snapshot() };
    const seconds = await runJobs(sfapi, onePage, printerId, jobs);
    // Let the last events leave the outbox before counting.
    await sleep(500);
    const after = { cpu: cpuSecondsOf(agent.part.pid), counts: requests.snapshot(), ipp: ipp.snapshot() };
    const perJob = (kind: string) => ((after.counts.get(kind) ?? 0) - (before.counts.get(kind) ?? 0)) / jobs;
    const kinds = [...new Set([...after.counts.keys()])].sort();
    const total = kinds.reduce((sum, kind) => sum + perJob(kind), 0);
    console.log(
      `jobs    ${jobs} one-page jobs after ${warmupJobs} warm-up, ${concurrency} submitters: ${(jobs / seconds).toFixed(1)} jobs/s`,
    );
    console.log(`agent   CPU ${(((after.cpu - before.cpu) / jobs) * 1000).toFixed(2)} ms/job`);
    console.log(
      `cloud   connector requests and channel requests per job ${total.toFixed(2)}: ${kinds.map((k) => `${k} ${perJob(k).toFixed(2)}`).join(', ')}`,
    );
    const ippPerJob = (key: string) => ((after.ipp.get(key) ?? 0) - (before.ipp.get(key) ?? 0)) / jobs;
    const operations = [...after.ipp.keys()].filter((k) => k !== 'connection').sort();
    const ippTotal = operations.reduce((sum, key) => sum + ippPerJob(key), 0);
    console.log(
      `ipp     requests per job ${ippTotal.toFixed(2)}: ${operations.map((k) => `${k} ${ippPerJob(k).toFixed(2)}`).join(', ')}; new connections per job ${ippPerJob('connection').toFixed(2)}`,
    );

    if (bigMb > 0) {
      const big = join(work, 'big.pdf');
      writeLargeDocument(big, readFileSync(onePage), bigMb);
      const size = statSync(big).size;
      const rate = (s: number) => `${(size / 1024 / 1024 / s).toFixed(0)} MB/s`;
      const direct = await runIpptoolBatch(printer.uri, writeBatchTest(work, 1, big, 'application/pdf'), 1);
      // CPU seconds of agent and emulator per leg: unlike wall time, hardly moved by other load.
      const cpu = () => ({ agent: cpuSecondsOf(agent.part.pid), emulator: cpuSecondsOf(emulator.part.pid) });
      const c0 = cpu();
      const g0 = collections.snapshot();
      const t0 = performance.now();
      const { fileid, sasUri } = await sfapi.prepareUpload();
      await sfapi.upload(sasUri, big, () => {});
      const t1 = performance.now();
      const c1 = cpu();
      const g1 = collections.snapshot();
      const { jobid } = await sfapi.print({ type: 'pdf', printerid: printerId, alias: 'big.pdf', fileid });
      const status = await waitForEnd(sfapi, jobid, 1_800_000);
      const t2 = performance.now();
      const c2 = cpu();
      const g2 = collections.snapshot();
      if (status.jobstatus !== 0) throw new Error(`the large job ended with ${status.jobstatus}`);
      const upload = (t1 - t0) / 1000;
      const agentLeg = (t2 - t1) / 1000;
      console.log(
        `large   ${mb(size)} direct ipptool -> printer: ${direct.seconds.toFixed(1)} s (${rate(direct.seconds)})`,
      );
      console.log(
        `large   app -> emulator upload ${upload.toFixed(1)} s (${rate(upload)}); Print -> agent -> printer -> completed ${agentLeg.toFixed(1)} s (${rate(agentLeg)}); whole ${(upload + agentLeg).toFixed(1)} s (${rate(upload + agentLeg)})`,
      );
      const gib = size / 1024 ** 3;
      const perGib = (seconds: number) => `${(seconds / gib).toFixed(2)} s`;
      console.log(
        `large   CPU per GiB: upload leg emulator ${perGib(c1.emulator - c0.emulator)}; agent leg agent ${perGib(c2.agent - c1.agent)}, emulator ${perGib(c2.emulator - c1.emulator)}`,
      );
      if (tracingGc)
        console.log(
          `large   emulator collections: upload leg ${collectionsBetween(g0, g1)}; agent leg ${collectionsBetween(g1, g2)}`,
        );
      console.log(`agent_ratio ${(direct.seconds / agentLeg).toFixed(3)}`);
      console.log(`ratio ${(direct.seconds / (upload + agentLeg)).toFixed(3)}`);
      rmSync(big, { force: true });
    }
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
