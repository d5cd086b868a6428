/**
 * What a restart resumes first. The ledger holds a job whose Create-Job reached the printer before
 * the crash (its printer job waits for a document that never comes, and the printer answers every
 * other Create-Job busy while it waits, as ippeveprinter does) and an earlier job that was only
 * spooled, both recorded in the same millisecond. The repair goes first: the held printer job is
 * cancelled, then both jobs print, in arrival order after the repair; no job waits out its
 * give-up time behind the busy printer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JobRunner, printerJobName } from '../../../../src/agent/jobs/job-runner.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { jobOffer } from '../../../support/job-offers.js';
import { eachTurnUntil, JobStepRig } from '../../../support/job-step-rig.js';

/**
 * A printer that takes one job at a time: while a job of it waits for its document, every
 * submission is refused busy (each refusal moves the agent's clock on by a second, so a job that
 * keeps retrying reaches its give-up time). The hardware boundary of this test.
 */
class OneAtATimePrinter extends FakePrinter {
  readonly uri = 'fake://one-at-a-time';
  readonly reportsDocumentSent = true;
  printed: string[] = [];
  constructor(private readonly clock: ManualClock) {
    super();
  }
  /** A printer job that waits for a document that never comes (a crash after Create-Job). */
  holdEmpty(name: string): string {
    return this.hold(name, { state: 'held', reasons: ['job-data-insufficient'] });
  }
  async submit(job: BackendJob): Promise<SubmittedJob> {
    if (this.anyIn('held')) {
      this.clock.advance(1000);
      throw new RetryableError('printer_busy', 'server-error-busy');
    }
    const id = this.hold(job.jobName, { state: 'completed', reasons: [], pagesCompleted: 1 });
    job.onPrinterJobCreated?.(id);
    job.onDocumentFlushed?.();
    job.onDocumentSent?.();
    this.printed.push(job.jobName);
    return { printerJobId: id };
  }
}

let clock: ManualClock;
let rig: JobStepRig;

beforeEach(() => {
  clock = new ManualClock();
  rig = new JobStepRig({ clock, jobs: { retry_max_ms: 10, give_up_after_s: 5, status_poll_ms: 5 } });
});
afterEach(() => rig.close());

it('a restart repairs the interrupted submission before it sends anything new', async () => {
  const { ledger } = rig;
  const printer = new OneAtATimePrinter(clock);
  // Same millisecond; the spooled job arrived first and its id sorts first too.
  const spooled = (id: string) => {
    const spoolPath = join(rig.spoolDir, `${id}.pdf`);
    writeFileSync(spoolPath, '%PDF-');
    ledger.add(jobOffer(id));
    ledger.move(id, 'downloading');
    ledger.move(id, 'spooled', { spoolPath });
  };
  spooled('a-first');
  spooled('b-killed');
  ledger.move('b-killed', 'submitting', { attempt: true });
  const held = printer.holdEmpty(printerJobName('b-killed'));
  ledger.recordPrinterJob('b-killed', held);
  spooled('c-later');

  const loop = rig.loop(new JobRunner(rig.deps()), () => printer);
  loop.start();
  const ids = ['a-first', 'b-killed', 'c-later'];
  const ended = () =>
    ids.every((id) => ['completed', 'failed', 'cancelled'].includes(ledger.get(id)?.state ?? ''));
  await eachTurnUntil(ended);
  await loop.stop();

  expect(ids.map((id) => [id, ledger.get(id)?.state, ledger.get(id)?.lastError])).toEqual(
    ids.map((id) => [id, 'completed', undefined]),
  );
  expect(printer.cancelled).toEqual([held]);
  expect(printer.printed).toEqual(['b-killed', 'a-first', 'c-later'].map(printerJobName));
});
