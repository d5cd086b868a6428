/**
 * The scrape run of bench:e2e (BENCH_SCRAPE_HZ): the measured jobs again while a Prometheus-like
 * scraper GETs the agent's /metrics at that rate, compared with the run without it.
 */
import type { SfapiClient } from '../../src/client/sfapi-client.js';
import { sleep } from '../../src/lib/abort.js';
import { runJobs } from './job-runs.js';
import { percentile } from './stats.js';
import { cpuSecondsOf } from './processes.js';

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
export async function scrapedRun(
  run: { sfapi: SfapiClient; file: string; printerId: string; jobs: number; concurrency: number },
  scrape: { metricsUrl: string; hz: number },
  without: { rate: number; agentMsPerJob: number; agentPid: number },
): Promise<void> {
  const stop = startScraper(scrape.metricsUrl, scrape.hz);
  const cpuBefore = cpuSecondsOf(without.agentPid);
  const result = await runJobs(run.sfapi, run.file, run.printerId, run.jobs, run.concurrency);
  const agentMs = ((cpuSecondsOf(without.agentPid) - cpuBefore) / run.jobs) * 1000;
  const scrapes = await stop();
  const rate = run.jobs / result.seconds;
  console.log(
    `scrape  ${scrapes.count} GET /metrics at ${scrape.hz} Hz while printing (${scrapes.failures} failed): mean ${scrapes.meanMs.toFixed(1)} ms, ${(scrapes.bytes / Math.max(1, scrapes.count) / 1024).toFixed(1)} KB each`,
  );
  console.log(
    `scrape  the same ${run.jobs} jobs with the scraper: ${rate.toFixed(1)} jobs/s (without: ${without.rate.toFixed(1)}), p50 ${percentile(result.latencies, 50).toFixed(1)} ms, agent ${agentMs.toFixed(1)} ms/job of CPU (without: ${without.agentMsPerJob.toFixed(1)})`,
  );
  console.log(`scrape ratio ${(rate / without.rate).toFixed(3)}`);
}
