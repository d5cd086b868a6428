/**
 * The app side of bench:e2e: signs the demo user in, waits for the agent's printer, and runs
 * one-page jobs through /sfapi with a number of submitters in flight.
 */
import { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO } from '../../src/config/demo-seed.js';
import { sleep } from '../../src/lib/abort.js';
import { demoSession } from '../../test/support/demo-session.js';
import { printAndWait } from '../../test/support/whole-loop.js';

/** The demo user's app, signed in with a long-lived token. */
export async function signIn(url: string): Promise<{ sfapi: SfapiClient; close(): Promise<void> }> {
  const { http } = await demoSession(url, DEMO.user, 'printing', 600_000);
  return { sfapi: new SfapiClient(http), close: () => http.close() };
}

/** Waits until the agent has registered the printer called `name`; resolves its id. */
export async function waitForPrinter(sfapi: SfapiClient, name: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const printer = (await sfapi.getPrinters()).find((p) => p.name === name);
    if (printer) return printer.id;
    if (Date.now() > deadline) throw new Error('the agent did not register the printer');
    await sleep(100);
  }
}

/** Runs `count` jobs with `concurrency` in flight; returns per-job latencies (ms, sorted) and the wall time (s). */
export async function runJobs(
  sfapi: SfapiClient,
  file: string,
  printerId: string,
  count: number,
  concurrency: number,
): Promise<{ latencies: number[]; seconds: number }> {
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
