/**
 * Does webhook delivery slow the print path? One emulator, agent and ippeveprinter (the path of
 * bench:e2e: /sfapi -> emulator -> agent -> IPP) print BENCH_JOBS one-page jobs per round, in
 * rounds that alternate between BENCH_SLOW_WEBHOOKS (3) webhook endpoints enabled, whose HTTPS
 * receivers take BENCH_WEBHOOK_DELAY_MS (2000) per answer, and the same endpoints disabled (no
 * event is queued for a disabled endpoint, so the emulator does no webhook work). Both kinds of
 * round run in the same processes, the order of each pair alternating (without first, then with
 * first, ...), so drift of the machine falls on both. While the endpoints are enabled, every
 * finished job queues one event per endpoint and the slow receivers let a backlog grow: that is
 * the load a site with slow receivers puts on the emulator.
 *
 *   npm run bench:webhooks-print-path   (BENCH_JOBS=200, BENCH_ROUNDS=8 pairs, BENCH_WARMUP_JOBS=300,
 *                                        BENCH_CONCURRENCY=16, BENCH_SLOW_WEBHOOKS=3,
 *                                        BENCH_WEBHOOK_DELAY_MS=2000, BENCH_PIN)
 * Pinned as bench:e2e (agent and printer on core 0, emulator and this process on core 1) when
 * there are two cores and taskset. Prints each pair, the medians of throughput, latency and the
 * emulator's CPU per job, the events the receivers got, the pairs' ratios' mean with its 95%
 * interval, and last `ratio <with/without>`: the median over the pairs of the throughput with
 * the endpoints against without. Goal: 1.0 within the interval.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { writePdf } from '../test/support/pdf.js';
import { runJobs } from './support/job-runs.js';
import { pinPlan, pinProcess } from './support/pinning.js';
import { cpuSecondsOf } from './support/processes.js';
import { PRINTER_NAME, printPathSettings, startPrintPath } from './support/print-path.js';
import { meanWithInterval, median, percentile } from './support/stats.js';

const { jobs, warmupJobs, concurrency, slowWebhooks, webhookDelayMs } = printPathSettings(3);
const pairs = Number(process.env.BENCH_ROUNDS ?? 8);

/** One round's figures. */
interface Round {
  jobsPerSecond: number;
  p50: number;
  emulatorMsPerJob: number;
}

async function main(): Promise<void> {
  if (slowWebhooks < 1) throw new Error('BENCH_SLOW_WEBHOOKS must be at least 1');
  const work = mkdtempSync(join(tmpdir(), 'bench-webhooks-print-'));
  const printer = await startIppEvePrinter({ name: 'Bench IPP Everywhere' });
  const stops: (() => Promise<void>)[] = [() => printer.stop()];
  const pin = pinPlan();
  try {
    const onePage = join(work, 'one.pdf');
    await writePdf(onePage, 1, 'PrintRelay benchmark');
    if (pin) {
      pinProcess(printer.pid, pin.agentCore);
      pinProcess(process.pid, pin.cloudCore);
    }
    const { emulator, app, printerId, receivers, endpoints } = await startPrintPath({
      work,
      printer: { name: PRINTER_NAME, uri: printer.uri },
      pin,
      slowWebhooks,
      webhookDelayMs,
      stops,
    });

    // Warm-up with the endpoints enabled, so both kinds of round run on a warm JIT and a queue
    // that already holds events.
    await runJobs(app.sfapi, onePage, printerId, warmupJobs, concurrency);
    const round = async (enabled: boolean): Promise<Round> => {
      await endpoints.setDisabled(!enabled);
      const cpu0 = cpuSecondsOf(emulator.part.pid);
      const run = await runJobs(app.sfapi, onePage, printerId, jobs, concurrency);
      return {
        jobsPerSecond: jobs / run.seconds,
        p50: percentile(run.latencies, 50),
        emulatorMsPerJob: ((cpuSecondsOf(emulator.part.pid) - cpu0) / jobs) * 1000,
      };
    };
    const without: Round[] = [];
    const withHooks: Round[] = [];
    const ratios: number[] = [];
    for (let pair = 1; pair <= pairs; pair += 1) {
      const withoutFirst = pair % 2 === 1;
      const first = await round(!withoutFirst);
      const second = await round(withoutFirst);
      const [off, on] = withoutFirst ? [first, second] : [second, first];
      without.push(off);
      withHooks.push(on);
      ratios.push(on.jobsPerSecond / off.jobsPerSecond);
      console.log(
        `pair ${pair} (${withoutFirst ? 'without first' : 'with first'}): without ${describe(off)}; with ${slowWebhooks} slow endpoints ${describe(on)}; ratio ${(on.jobsPerSecond / off.jobsPerSecond).toFixed(3)}`,
      );
    }
    await endpoints.setDisabled(false);
    const summary = (label: string, rounds: Round[]) =>
      console.log(
        `${label} median ${median(rounds.map((r) => r.jobsPerSecond)).toFixed(1)} jobs/s, p50 ${median(rounds.map((r) => r.p50)).toFixed(1)} ms, emulator ${median(rounds.map((r) => r.emulatorMsPerJob)).toFixed(2)} ms CPU/job`,
      );
    summary(
      `without  ${pairs} rounds of ${jobs} jobs (${concurrency} submitters${pin ? ', pinned' : ''}):`,
      without,
    );
    summary(`with     ${slowWebhooks} endpoints answering in ${webhookDelayMs} ms:`, withHooks);
    const got = receivers.map((r) => r.requests.length);
    console.log(
      `webhook  events received so far per endpoint: ${got.join(', ')} (the rest stays queued behind the slow receivers)`,
    );
    const { mean, halfWidth } = meanWithInterval(ratios);
    console.log(
      `spread   pair ratios from ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}; mean ${mean.toFixed(3)} ± ${halfWidth.toFixed(3)} (95% interval)`,
    );
    console.log(`ratio ${median(ratios).toFixed(3)}`);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
    rmSync(work, { recursive: true, force: true });
  }
}

function describe(r: Round): string {
  return `${r.jobsPerSecond.toFixed(1)} jobs/s, p50 ${r.p50.toFixed(1)} ms, emulator ${r.emulatorMsPerJob.toFixed(2)} ms CPU/job`;
}

await main();
