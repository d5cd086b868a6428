/**
 * The print path of bench:e2e and bench:webhooks-print-path, started: an emulator (its database
 * in memory; trusting the slow webhook receivers' CA when there are any), an agent with the
 * given printer, the demo user's app signed in, the printer registered, and one webhook endpoint
 * per slow receiver. Pinned when `pin` is given (agent on its agent core, emulator on its cloud
 * core). Every part's stop is put in front of `stops`.
 */
import { join } from 'node:path';
import type { HttpsReceiver } from '../../test/support/https-receiver.js';
import { type BenchAgent, startBenchAgent } from './agent-part.js';
import { signIn, waitForPrinter } from './job-runs.js';
import { type PinPlan, pinProcess } from './pinning.js';
import { type RunningPart, startEmulatorPart } from './processes.js';
import { type RegisteredEndpoints, registerEndpoints, startSlowReceivers } from './slow-webhooks.js';

/** The name of the path's printer. */
export const PRINTER_NAME = 'Bench Printer';

/**
 * The settings of a print-path benchmark from the environment: BENCH_JOBS (200),
 * BENCH_WARMUP_JOBS (300), BENCH_CONCURRENCY (16), BENCH_SLOW_WEBHOOKS (`slowWebhooksDefault`),
 * BENCH_WEBHOOK_DELAY_MS (2000).
 */
export function printPathSettings(slowWebhooksDefault: number) {
  const env = process.env;
  return {
    jobs: Number(env.BENCH_JOBS ?? 200),
    warmupJobs: Number(env.BENCH_WARMUP_JOBS ?? 300),
    concurrency: Number(env.BENCH_CONCURRENCY ?? 16),
    slowWebhooks: Number(env.BENCH_SLOW_WEBHOOKS ?? slowWebhooksDefault),
    webhookDelayMs: Number(env.BENCH_WEBHOOK_DELAY_MS ?? 2000),
  };
}

/** The running print path. */
export interface PrintPath {
  emulator: { part: RunningPart; url: string };
  agent: BenchAgent;
  app: Awaited<ReturnType<typeof signIn>>;
  printerId: string;
  receivers: HttpsReceiver[];
  endpoints: RegisteredEndpoints;
}

/** What to start. */
export interface PrintPathOptions {
  work: string;
  printer: { name: string; uri: string };
  pin: PinPlan | null;
  /** Slow webhook receivers (and endpoints) to start: 0 for none. */
  slowWebhooks: number;
  webhookDelayMs: number;
  stops: (() => Promise<void>)[];
}

/** Starts the print path; see the file's header. */
export async function startPrintPath(o: PrintPathOptions): Promise<PrintPath> {
  const caFile = join(o.work, 'webhook-ca.pem');
  const receivers = await startSlowReceivers(o.slowWebhooks, o.webhookDelayMs, caFile, o.stops);
  const emulator = await startEmulatorPart(
    join(o.work, 'emulator'),
    receivers.length > 0 ? ['--webhook-ca', caFile, '--allow-outbound', '127.0.0.1'] : [],
  );
  o.stops.unshift(() => emulator.part.stop());
  if (o.pin) pinProcess(emulator.part.pid, o.pin.cloudCore);
  const pin = o.pin;
  const agent = await startBenchAgent(o.work, emulator.url, o.printer, (pid) => {
    if (pin) pinProcess(pid, pin.agentCore);
  });
  o.stops.unshift(() => agent.part.stop());
  const app = await signIn(emulator.url);
  o.stops.unshift(() => app.close());
  const printerId = await waitForPrinter(app.sfapi, o.printer.name);
  const endpoints = await registerEndpoints(emulator.url, receivers);
  return { emulator, agent, app, printerId, receivers, endpoints };
}
