/**
 * End-to-end benchmark: N one-page PDF jobs through /sfapi -> emulator -> agent -> ippeveprinter,
 * against the same N jobs sent straight to the same ippeveprinter by ONE ipptool run on ONE
 * connection, measured in the same run. Emulator and agent run as separate processes, so their
 * memory is read on its own (/proc VmRSS, VmHWM). Then one large document (1 GiB by default)
 * goes through the whole path, with the peak RSS growth of agent and emulator.
 *
 *   npm run bench:e2e     (BENCH_JOBS=200, BENCH_WARMUP_JOBS=300, BENCH_BIG_MB=1024, BENCH_CONCURRENCY=16,
 *                          BENCH_SCRAPE_HZ=0)
 *   BENCH_SLOW_WEBHOOKS=3 npm run bench:e2e    the same with 3 webhook endpoints configured whose
 *     HTTPS receivers take 2 s per answer (BENCH_WEBHOOK_DELAY_MS): delivery must not slow printing
 * Prints throughput of both paths, p50/p95 submit-to-completed latency of ours, the agent's peak
 * RSS, the large-job figures, and last a line `ratio <ours/direct throughput>`. With
 * BENCH_SCRAPE_HZ=1 the measured jobs run a second time while a Prometheus-like scraper GETs the
 * agent's /metrics at that rate, and `scrape ratio <with/without scraper throughput>` is printed.
 */
import { demoSession } from '../test/support/demo-session.js';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { SfapiClient } from '../src/client/sfapi-client.js';
import { DEMO } from '../src/config/demo-seed.js';
import { sleep } from '../src/lib/abort.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { freePort } from '../test/support/peers.js';
import { writePdf } from '../test/support/pdf.js';
import { printAndWait } from '../test/support/whole-loop.js';
import { runIpptoolBatch, writeBatchTest } from './support/ipptool-baseline.js';
import { cpuSecondsOf, mb, memoryOf, resetPeak, startEmulatorPart, startPart } from './support/processes.js';
import { fetchPasswordToken } from '../src/client/oauth-client.js';
import {
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
} from '../test/support/https-receiver.js';

const cpuSecondsOfThisProcess = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const jobs = Number(process.env.BENCH_JOBS ?? 200);
const bigMb = Number(process.env.BENCH_BIG_MB ?? 1024);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const warmupJobs = Number(process.env.BENCH_WARMUP_JOBS ?? 300);
const scrapeHz = Number(process.env.BENCH_SCRAPE_HZ ?? 0);
const printerName = 'Bench Printer';
const slowWebhooks = Number(process.env.BENCH_SLOW_WEBHOOKS ?? 0);
const webhookDelayMs = Number(process.env.BENCH_WEBHOOK_DELAY_MS ?? 2000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A PDF of about `megabytes` MiB: a one-page PDF followed by padding after %%EOF, written in chunks. */
function writeLargeDocument(path: string, onePage: Buffer, megabytes: number): void {
  const fd = openSync(path, 'w');
  writeSync(fd, onePage);
  const chunk = Buffer.alloc(4 * 1024 * 1024, 0x20);
  for (let written = 0; written < megabytes * 1024 * 1024; written += chunk.length) writeSync(fd, chunk);
  closeSync(fd);
}

async function signIn(url: string): Promise<{ sfapi: SfapiClient; close(): Promise<void> }> {
  const { http } = await demoSession(url, DEMO.user, 'printing', 600_000);
  return { sfapi: new SfapiClient(http), close: () => http.close() };
}

async function waitForPrinter(sfapi: SfapiClient): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const printer = (await sfapi.getPrinters()).find((p) => p.name === printerName);
    if (printer) return printer.id;
    if (Date.now() > deadline) throw new Error('the agent did not register the printer');
    await sleep(100);
  }
}

/** Runs `count` jobs with `concurrency` in flight; returns per-job latencies (ms) and the wall time (s). */
async function runJobs(sfapi: SfapiClient, file: string, printerId: string, count: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      next += 1;
      const t0 = performance.now();
      const { status } = await printAndWait(
        sfapi,
        file,
        { type: 'pdf', printerid: printerId, alias: 'bench.pdf' },
        120_000,
      );
      if (status.jobstatus !== 0)
        throw new Error(`a job ended with ${status.jobstatus} ${status.jobstatusstring}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000 };
}

/** GETs `url` every 1/hz s until stopped; resolves the number of scrapes, their mean duration and size. */
function startScraper(url: string, hz: number) {
  const durations: number[] = [];
  let bytes = 0;
  let failures = 0;
  const timer = setInterval(() => {
    const t0 = performance.now();
    fetch(url)
      .then((res) => res.text())
      .then((text) => {
        durations.push(performance.now() - t0);
        bytes += text.length;
      })
      .catch(() => {
        failures += 1;
      });
  }, 1000 / hz);
  return async () => {
    clearInterval(timer);
    await sleep(200);
    const mean = durations.reduce((a, b) => a + b, 0) / Math.max(1, durations.length);
    return { count: durations.length, failures, meanMs: mean, bytes };
  };
}

/** Runs the measured jobs again with the scraper on and prints the comparison. */
async function scrapedRun(
  sfapi: SfapiClient,
  file: string,
  printerId: string,
  metricsUrl: string,
  without: { rate: number; agentMsPerJob: number; agentPid: number },
): Promise<void> {
  const stop = startScraper(metricsUrl, scrapeHz);
  const cpuBefore = cpuSecondsOf(without.agentPid);
  const run = await runJobs(sfapi, file, printerId, jobs);
  const agentMs = ((cpuSecondsOf(without.agentPid) - cpuBefore) / jobs) * 1000;
  const scrapes = await stop();
  const rate = jobs / run.seconds;
  console.log(
    `scrape  ${scrapes.count} GET /metrics at ${scrapeHz} Hz while printing (${scrapes.failures} failed): mean ${scrapes.meanMs.toFixed(1)} ms, ${(scrapes.bytes / Math.max(1, scrapes.count) / 1024).toFixed(1)} KB each`,
  );
  console.log(
    `scrape  the same ${jobs} jobs with the scraper: ${rate.toFixed(1)} jobs/s (without: ${without.rate.toFixed(1)}), p50 ${percentile(run.latencies, 50).toFixed(1)} ms, agent ${agentMs.toFixed(1)} ms/job of CPU (without: ${without.agentMsPerJob.toFixed(1)})`,
  );
  console.log(`scrape ratio ${(rate / without.rate).toFixed(3)}`);
}

/** Slow HTTPS receivers with a private CA (written to `caFile`), when BENCH_SLOW_WEBHOOKS is set. */
async function startSlowReceivers(caFile: string, stops: (() => Promise<void>)[]): Promise<HttpsReceiver[]> {
  if (slowWebhooks <= 0) return [];
  const certs = await makeTestCertificates();
  stops.push(() => certs.remove());
  writeFileSync(caFile, certs.caPem);
  const receivers: HttpsReceiver[] = [];
  for (let i = 0; i < slowWebhooks; i += 1) {
    const receiver = await startHttpsReceiver(certs, () => ({ status: 200, delayMs: webhookDelayMs }));
    stops.unshift(() => receiver.close());
    receivers.push(receiver);
  }
  return receivers;
}

/** Registers one webhook endpoint per receiver (both topics) with an admin token. */
async function registerEndpoints(url: string, receivers: HttpsReceiver[]): Promise<void> {
  if (receivers.length === 0) return;
  const settings = { authUrl: url, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
  const { access_token } = await fetchPasswordToken(
    settings,
    DEMO.admin.email,
    DEMO.admin.password,
    'webhooks',
  );
  for (const [i, receiver] of receivers.entries()) {
    const res = await fetch(`${url}/webhooks/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Slow receiver ${i + 1}`, url: receiver.url }),
    });
    if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${await res.text()}`);
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  const printer = await startIppEvePrinter({ name: 'Bench IPP Everywhere' });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  try {
    const onePage = join(work, 'one.pdf');
    await writePdf(onePage, 1, 'PrintRelay benchmark');

    const printerCpu = () => cpuSecondsOf(printer.pid, { withChildren: true });
    const printerBefore = printerCpu();
    const baseline = await runIpptoolBatch(
      printer.uri,
      writeBatchTest(work, jobs, onePage, 'application/pdf'),
      jobs,
    );
    const printerDirectMs = ((printerCpu() - printerBefore) / jobs) * 1000;
    console.log(
      `direct  ipptool, one connection: ${jobs} jobs in ${baseline.seconds.toFixed(2)} s = ${baseline.jobsPerSecond.toFixed(1)} jobs/s`,
    );

    const caFile = join(work, 'webhook-ca.pem');
    const receivers = await startSlowReceivers(caFile, stops);
    const emulator = await startEmulatorPart(
      join(work, 'emulator'),
      receivers.length > 0 ? ['--webhook-ca', caFile, '--allow-outbound', '127.0.0.1'] : [],
    );
    stops.unshift(() => emulator.part.stop());
    const { url } = emulator;
    const agentConfig = join(work, 'agent.yaml');
    const controlPort = await freePort();
    writeFileSync(
      agentConfig,
      stringify({
        version: 1,
        cloud: {
          url,
          client_id: DEMO.client.id,
          client_secret: DEMO.client.secret,
          username: DEMO.admin.email,
          password: DEMO.admin.password,
        },
        log: { level: 'warn' },
        control: { port: controlPort },
        printers: [{ name: printerName, uri: printer.uri }],
      }),
    );
    const agent = await startPart(
      ['agent', '--config', agentConfig, '--data-dir', join(work, 'agent'), '--no-pretty'],
      null,
    );
    stops.unshift(() => agent.part.stop());
    const app = await signIn(url);
    stops.unshift(() => app.close());
    const printerId = await waitForPrinter(app.sfapi);
    await registerEndpoints(url, receivers);

    // Warm-up: a daemon's steady state is what counts. The JIT settles over the first few hundred
    // jobs (with 10 warm-up jobs the agent used 9.4 ms of CPU per job, after 400 it used 7.8 ms),
    // so the measured jobs start after BENCH_WARMUP_JOBS of them.
    await runJobs(app.sfapi, onePage, printerId, warmupJobs);
    const cpuNow = () => ({
      agent: cpuSecondsOf(agent.part.pid),
      emulator: cpuSecondsOf(emulator.part.pid),
      printer: printerCpu(),
      app: cpuSecondsOfThisProcess(),
    });
    const cpuBefore = cpuNow();
    const ours = await runJobs(app.sfapi, onePage, printerId, jobs);
    const cpuAfter = cpuNow();
    const cpu = {
      agent: cpuAfter.agent - cpuBefore.agent,
      emulator: cpuAfter.emulator - cpuBefore.emulator,
      printer: cpuAfter.printer - cpuBefore.printer,
      app: cpuAfter.app - cpuBefore.app,
    };
    const oursRate = jobs / ours.seconds;
    console.log(
      `ours    /sfapi -> agent -> IPP:   ${jobs} jobs in ${ours.seconds.toFixed(2)} s = ${oursRate.toFixed(1)} jobs/s (${concurrency} submitters)`,
    );
    console.log(
      `ours    submit-to-completed latency: p50 ${percentile(ours.latencies, 50).toFixed(1)} ms, p95 ${percentile(ours.latencies, 95).toFixed(1)} ms`,
    );
    console.log(
      `cpu     during the run: agent ${cpu.agent.toFixed(2)} s (${((cpu.agent / jobs) * 1000).toFixed(1)} ms/job), emulator ${cpu.emulator.toFixed(2)} s (${((cpu.emulator / jobs) * 1000).toFixed(1)} ms/job), on ${availableParallelism()} cores`,
    );
    const perJob = (seconds: number) => `${((seconds / jobs) * 1000).toFixed(1)} ms/job`;
    console.log(
      `cpu     the app (this process) ${perJob(cpu.app)}; ippeveprinter with its print command ${perJob(cpu.printer)} (direct run: ${printerDirectMs.toFixed(1)} ms/job)`,
    );
    // What the printer leaves of the machine at the goal's rate: the budget of app, emulator and agent.
    const goalRate = 0.9 * baseline.jobsPerSecond;
    const budgetMs = (availableParallelism() * 1000) / goalRate - (cpu.printer / jobs) * 1000;
    console.log(
      `budget  at 0.9 x direct (${goalRate.toFixed(0)} jobs/s) the ${availableParallelism()} cores leave ${budgetMs.toFixed(1)} ms/job for app + emulator + agent; used ${perJob(cpu.app + cpu.emulator + cpu.agent)}`,
    );
    console.log(
      `agent   peak RSS so far: ${mb(memoryOf(agent.part.pid).peak)}; emulator peak RSS so far: ${mb(memoryOf(emulator.part.pid).peak)}`,
    );

    if (scrapeHz > 0) {
      await scrapedRun(app.sfapi, onePage, printerId, `http://127.0.0.1:${controlPort}/metrics`, {
        rate: oursRate,
        agentMsPerJob: (cpu.agent / jobs) * 1000,
        agentPid: agent.part.pid,
      });
    }

    if (bigMb > 0) {
      const big = join(work, 'big.pdf');
      writeLargeDocument(
        big,
        Buffer.from(await import('node:fs').then((fs) => fs.readFileSync(onePage))),
        bigMb,
      );
      const before = { agent: memoryOf(agent.part.pid).rss, emulator: memoryOf(emulator.part.pid).rss };
      const reset = resetPeak(agent.part.pid) && resetPeak(emulator.part.pid);
      const t0 = performance.now();
      const { status } = await printAndWait(
        app.sfapi,
        big,
        { type: 'pdf', printerid: printerId, alias: 'big.pdf' },
        1_800_000,
      );
      const seconds = (performance.now() - t0) / 1000;
      if (status.jobstatus !== 0) throw new Error(`the large job ended with ${status.jobstatus}`);
      const after = { agent: memoryOf(agent.part.pid).peak, emulator: memoryOf(emulator.part.pid).peak };
      const size = statSync(big).size;
      console.log(
        `large   ${mb(size)} through the whole path in ${seconds.toFixed(1)} s (${(size / 1024 / 1024 / seconds).toFixed(0)} MB/s)`,
      );
      console.log(
        `large   peak RSS growth${reset ? '' : ' (peak not resettable: lifetime peak)'}: agent ${mb(after.agent - before.agent)} (peak ${mb(after.agent)}), emulator ${mb(after.emulator - before.emulator)} (peak ${mb(after.emulator)})`,
      );
      rmSync(big, { force: true });
    }
    if (receivers.length > 0) {
      const got = receivers.map((r) => r.requests.length);
      console.log(
        `webhook ${receivers.length} endpoints answering in ${webhookDelayMs} ms: ${got.join(', ')} events received so far of ${warmupJobs + jobs + (bigMb > 0 ? 1 : 0)} jobs each (the rest stays queued)`,
      );
    }
    console.log(`ratio ${(oursRate / baseline.jobsPerSecond).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
