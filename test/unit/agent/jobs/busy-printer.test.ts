/**
 * A printer that takes one job at a time answers the next job busy while the previous one prints.
 * The agent then waits for that previous job (which it watches anyway) to end, instead of asking
 * the printer again and again: one busy answer, then the job goes as soon as the printer is free,
 * well before the back-off ceiling (`jobs.retry_max_ms`, a minute here).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner, printerJobName } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger } from '../../../../src/store/job-ledger.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { jobOffer } from '../../../support/job-offers.js';

/** One job at a time; a job prints until the test ends it. The hardware boundary of this test. */
class SlowPrinter extends FakePrinter {
  readonly uri = 'fake://slow';
  printed: string[] = [];
  busyAnswers = 0;
  private firstBusy: () => void = () => {};
  readonly refusedBusy = new Promise<void>((resolve) => {
    this.firstBusy = resolve;
  });
  async submit(job: BackendJob): Promise<SubmittedJob> {
    if (this.anyIn('processing')) {
      this.busyAnswers++;
      this.firstBusy();
      throw new RetryableError('printer_busy', 'server-error-busy');
    }
    const id = this.hold(job.jobName, { state: 'processing', reasons: [] });
    this.printed.push(job.jobName);
    return { printerJobId: id };
  }
  /** The printer finishes the job it is printing. */
  finishPrinting(): void {
    for (const job of this.jobs.values()) {
      if (job.state.state === 'processing')
        job.state = { state: 'completed', reasons: [], pagesCompleted: 1 };
    }
  }
}

let dir: string;
let db: AgentDatabase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'busy-printer-'));
  db = openAgentDatabase(':memory:');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a job refused busy waits for the printer’s previous job instead of polling the printer', async () => {
  const ledger = new JobLedger(db, systemClock);
  const printer = new SlowPrinter();
  const runner = new JobRunner({
    ledger,
    emit: () => {},
    download: async (_offer, target) => writeFileSync(target, '%PDF-'),
    jobs: {
      retry_initial_ms: 5,
      retry_max_ms: 60_000,
      give_up_after_s: 600,
      download_attempts: 3,
      status_poll_ms: 5,
    },
    spoolDir: dir,
    clock: systemClock,
    logger: silentLogger(),
  });
  const loop = new JobLoop({
    ledger,
    runner,
    emit: () => {},
    backendFor: () => printer,
    spoolDir: dir,
    logger: silentLogger(),
  });
  loop.start();
  loop.offer(jobOffer('first'));
  loop.offer(jobOffer('second'));
  await printer.refusedBusy;
  // The window in which a polling agent would ask the busy printer again and again.
  await new Promise((resolve) => setTimeout(resolve, 200));
  printer.finishPrinting();
  const reached = async (id: string, states: string[]) => {
    for (let i = 0; i < 500 && !states.includes(ledger.get(id)?.state ?? ''); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await reached('second', ['submitted', 'completed']);
  printer.finishPrinting();
  await reached('second', ['completed']);
  await loop.stop();
  expect(printer.printed).toEqual([printerJobName('first'), printerJobName('second')]);
  expect(printer.busyAnswers).toBe(1);
});

it('once a printer answered busy while holding the previous job, later jobs wait for it without asking', async () => {
  const ledger = new JobLedger(db, systemClock);
  const printer = new SlowPrinter();
  const runner = new JobRunner({
    ledger,
    emit: () => {},
    download: async (_offer, target) => writeFileSync(target, '%PDF-'),
    jobs: {
      retry_initial_ms: 5,
      retry_max_ms: 60_000,
      give_up_after_s: 600,
      download_attempts: 3,
      status_poll_ms: 5,
    },
    spoolDir: dir,
    clock: systemClock,
    logger: silentLogger(),
  });
  const loop = new JobLoop({
    ledger,
    runner,
    emit: () => {},
    backendFor: () => printer,
    spoolDir: dir,
    logger: silentLogger(),
  });
  loop.start();
  const ids = ['one', 'two', 'three', 'four'];
  for (const id of ids) loop.offer(jobOffer(id));
  const reached = async (id: string, states: string[]) => {
    for (let i = 0; i < 500 && !states.includes(ledger.get(id)?.state ?? ''); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  for (const id of ids) {
    await reached(id, ['submitted', 'completed']);
    // Long enough for a job that does not wait to be sent and refused.
    await new Promise((resolve) => setTimeout(resolve, 50));
    printer.finishPrinting();
  }
  await reached('four', ['completed']);
  await loop.stop();
  expect(printer.printed).toEqual(ids.map(printerJobName));
  // Job two heard busy once (the printer's way was not known yet); three and four waited.
  expect(printer.busyAnswers).toBe(1);
  expect(ids.map((id) => ledger.get(id)?.state)).toEqual([
    'completed',
    'completed',
    'completed',
    'completed',
  ]);
});
