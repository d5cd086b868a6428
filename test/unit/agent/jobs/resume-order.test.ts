/**
 * What a restart resumes first. The ledger holds a job whose Create-Job reached the printer before
 * the crash (its printer job waits for a document that never comes, and the printer answers every
 * other Create-Job busy while it waits, as ippeveprinter does) and an earlier job that was only
 * spooled, both recorded in the same millisecond. The repair goes first: the held printer job is
 * cancelled, then both jobs print, in arrival order after the repair; no job waits out its
 * give-up time behind the busy printer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner, printerJobName } from '../../../../src/agent/jobs/job-runner.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger } from '../../../../src/store/job-ledger.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { jobOffer } from '../../../support/job-offers.js';

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

let dir: string;
let db: AgentDatabase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resume-order-'));
  db = openAgentDatabase(':memory:');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a restart repairs the interrupted submission before it sends anything new', async () => {
  const clock = new ManualClock();
  const ledger = new JobLedger(db, clock);
  const printer = new OneAtATimePrinter(clock);
  // Same millisecond; the spooled job arrived first and its id sorts first too.
  const spooled = (id: string) => {
    const spoolPath = join(dir, `${id}.pdf`);
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

  const runner = new JobRunner({
    ledger,
    emit: () => {},
    download: async () => {},
    jobs: {
      retry_initial_ms: 5,
      retry_max_ms: 10,
      give_up_after_s: 5,
      download_attempts: 3,
      status_poll_ms: 5,
    },
    spoolDir: dir,
    clock,
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
  const ids = ['a-first', 'b-killed', 'c-later'];
  const ended = () =>
    ids.every((id) => ['completed', 'failed', 'cancelled'].includes(ledger.get(id)?.state ?? ''));
  for (let i = 0; i < 400 && !ended(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  await loop.stop();

  expect(ids.map((id) => [id, ledger.get(id)?.state, ledger.get(id)?.lastError])).toEqual(
    ids.map((id) => [id, 'completed', undefined]),
  );
  expect(printer.cancelled).toEqual([held]);
  expect(printer.printed).toEqual(['b-killed', 'a-first', 'c-later'].map(printerJobName));
});
