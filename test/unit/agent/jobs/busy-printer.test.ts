/**
 * A printer that takes one job at a time answers the next job busy while the previous one prints.
 * The agent then waits for that previous job (which it watches anyway) to end, instead of asking
 * the printer again and again: one busy answer, then the job goes as soon as the printer is free,
 * well before the back-off ceiling (`jobs.retry_max_ms`, a minute here).
 */
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner, printerJobName } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { jobOffer } from '../../../support/job-offers.js';
import { eachTurnUntil, JobStepRig } from '../../../support/job-step-rig.js';

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

let rig: JobStepRig;
let printer: SlowPrinter;
let loop: JobLoop;
beforeEach(() => {
  // Real time (the printer's jobs end when the test says), with a back-off ceiling of a minute.
  rig = new JobStepRig({
    clock: systemClock,
    jobs: { retry_max_ms: 60_000, give_up_after_s: 600, status_poll_ms: 5 },
  });
  printer = new SlowPrinter();
  const runner = new JobRunner(
    rig.deps({ download: async (_offer, target) => writeFileSync(target, '%PDF-') }),
  );
  loop = rig.loop(runner, () => printer);
});
afterEach(() => rig.close());

/** Resolves once the job's ledger state is one of `states`, checking after each turn. */
const reached = (id: string, states: string[]) =>
  eachTurnUntil(() => states.includes(rig.ledger.get(id)?.state ?? ''));

it('a job refused busy waits for the printer’s previous job instead of polling the printer', async () => {
  loop.start();
  loop.offer(jobOffer('first'));
  loop.offer(jobOffer('second'));
  await printer.refusedBusy;
  // The window in which a polling agent would ask the busy printer again and again.
  await new Promise((resolve) => setTimeout(resolve, 200));
  printer.finishPrinting();
  await reached('second', ['submitted', 'completed']);
  printer.finishPrinting();
  await reached('second', ['completed']);
  await loop.stop();
  expect(printer.printed).toEqual([printerJobName('first'), printerJobName('second')]);
  expect(printer.busyAnswers).toBe(1);
});

it('once a printer answered busy while holding the previous job, later jobs wait for it without asking', async () => {
  loop.start();
  const ids = ['one', 'two', 'three', 'four'];
  for (const id of ids) loop.offer(jobOffer(id));
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
  expect(ids.map((id) => rig.ledger.get(id)?.state)).toEqual([
    'completed',
    'completed',
    'completed',
    'completed',
  ]);
});
