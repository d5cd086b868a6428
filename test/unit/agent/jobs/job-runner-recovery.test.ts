/**
 * How the job runner reconciles a submission a crash interrupted, with a printer fake that
 * creates jobs before their document (as IPP Create-Job does): the recorded printer job id, the
 * printer jobs of earlier attempts, what the ledger knows of the document (flushed to the OS,
 * sent: the printer answered) and what the printer reports of it (K octets) decide between
 * watching and cancel-and-resend.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobRunner, printerJobName } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BackendJob, BackendJobState, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger } from '../../../../src/store/job-ledger.js';
import type { NewJobEvent } from '../../../../src/store/outbox.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { quietControl } from '../../../support/job-control.js';
import { type KnownOfDocument, leaveInterrupted } from '../../../support/interrupted-job.js';

function unreachable(code: string): RetryableError {
  return new RetryableError('printer_unreachable', `printer: ${code}`, { cause: { code } });
}

/** A two-step printer: jobs exist (with a name) before their document; the hardware boundary here. */
class TwoStepPrinter extends FakePrinter {
  readonly uri = 'fake://two-step';
  reportsDocumentSent = true;
  sent: string[] = [];
  /**
   * The next submission fails as the agent sees it: `cut-after-flush`, every byte flushed, then
   * the connection breaks before the answer and the printer prints what it took as the whole
   * document; `refused-after-create`, Create-Job answered, then Send-Document is refused.
   */
  failNext?: 'cut-after-flush' | 'refused-after-create';
  /** The next Cancel-Job arrives (the job is cancelled) but its answer is lost. */
  loseCancelAnswer = false;
  async submit(job: BackendJob): Promise<SubmittedJob> {
    const id = this.hold(job.jobName, { state: 'held', reasons: ['job-data-insufficient'] });
    job.onPrinterJobCreated?.(id);
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure === 'refused-after-create') throw unreachable('ECONNREFUSED');
    job.onDocumentFlushed?.();
    if (failure === 'cut-after-flush') {
      this.jobs.set(id, { name: job.jobName, state: { state: 'completed', reasons: [] } });
      throw unreachable('ECONNRESET');
    }
    job.onDocumentSent?.();
    this.sent.push(job.jobName);
    this.jobs.set(id, { name: job.jobName, state: { state: 'completed', reasons: [], pagesCompleted: 1 } });
    return { printerJobId: id };
  }
  /** States a job moves through, one per Get-Job-Attributes, before it settles in its own. */
  upcoming = new Map<string, BackendJobState[]>();
  override async jobState(id: string): Promise<BackendJobState> {
    const next = this.upcoming.get(id)?.shift();
    const job = this.jobs.get(id);
    if (next && job) job.state = next;
    return super.jobState(id);
  }
  override async cancel(id: string): Promise<void> {
    await super.cancel(id);
    if (this.loseCancelAnswer) {
      this.loseCancelAnswer = false;
      throw unreachable('ECONNRESET');
    }
  }
}

describe('JobRunner recovery of an interrupted submission', () => {
  let dir: string;
  let db: AgentDatabase;
  let ledger: JobLedger;
  let printer: TwoStepPrinter;
  let runner: JobRunner;
  let events: NewJobEvent[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'recovery-'));
    db = openAgentDatabase(':memory:');
    ledger = new JobLedger(db, systemClock);
    printer = new TwoStepPrinter();
    events = [];
    runner = new JobRunner({
      ledger,
      emit: (_id, event) => events.push(event),
      download: async () => {},
      jobs: {
        retry_initial_ms: 5,
        retry_max_ms: 10,
        give_up_after_s: 60,
        download_attempts: 3,
        status_poll_ms: 5,
      },
      spoolDir: dir,
      clock: systemClock,
      logger: silentLogger(),
    });
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A job left in `submitting` by a crash: spool file of `bytes` there, optionally a printer job
   * recorded, and what the ledger knew of the document: nothing, every byte flushed to the OS, or
   * sent (the printer answered).
   */
  function interrupted(
    id: string,
    printerJobId?: string,
    document: KnownOfDocument = 'none',
    bytes = 5,
  ): void {
    leaveInterrupted(ledger, dir, id, { printerJobId, document, bytes });
  }

  async function finish(id: string) {
    await runner.submit(id, printer, quietControl());
    await runner.watch(id, printer, quietControl());
    return ledger.get(id);
  }

  it('recorded job, document cut: cancels it at the printer and sends the job again', async () => {
    const held = printer.hold(printerJobName('r1'), { state: 'held', reasons: ['job-data-insufficient'] });
    interrupted('r1', held);
    const job = await finish('r1');
    expect(printer.cancelled).toEqual([held]);
    expect(printer.jobs.get(held)?.state.state).toBe('cancelled');
    expect(printer.sent).toEqual([printerJobName('r1')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2', documentSent: true });
  });

  it('recorded job, whole document flushed: watches it and never sends it again', async () => {
    const whole = printer.hold(printerJobName('r2'), { state: 'completed', reasons: [], pagesCompleted: 1 });
    interrupted('r2', whole, 'flushed');
    const job = await finish('r2');
    expect([printer.sent, printer.cancelled]).toEqual([[], []]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: whole });
  });

  it('recorded job, whole document sent but it never arrived: cancels it and sends the job again', async () => {
    const waiting = printer.hold(printerJobName('r6'), { state: 'held', reasons: ['job-data-insufficient'] });
    interrupted('r6', waiting, 'flushed');
    const job = await finish('r6');
    expect(printer.cancelled).toEqual([waiting]);
    expect(printer.sent).toEqual([printerJobName('r6')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2', documentSent: true });
  });

  it('recorded job, cut, but the printer already completed it: sends the whole document again', async () => {
    const printedCut = printer.hold(printerJobName('r3'), { state: 'completed', reasons: [] });
    interrupted('r3', printedCut);
    const job = await finish('r3');
    expect(printer.cancelled).toEqual([printedCut]);
    expect(printer.sent).toEqual([printerJobName('r3')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2' });
  });

  it('no id recorded, the printer holds the job without its document: cancels it and sends again', async () => {
    const empty = printer.hold(printerJobName('r4'), { state: 'held', reasons: ['job-data-insufficient'] });
    interrupted('r4');
    const job = await finish('r4');
    expect(printer.cancelled).toEqual([empty]);
    expect(printer.sent).toEqual([printerJobName('r4')]);
    expect(job?.state).toBe('completed');
  });

  it('no id recorded, a Print-Job found whose document was flushed whole: watches it', async () => {
    const found = printer.hold(printerJobName('r5'), { state: 'completed', reasons: [], pagesCompleted: 1 });
    interrupted('r5', undefined, 'flushed');
    const job = await finish('r5');
    expect([printer.sent, printer.cancelled]).toEqual([[], []]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: found });
    expect(events.map((e) => e.kind)).toEqual(['printing', 'completed']);
  });

  it('no id recorded, a Print-Job found whose document may be cut: cancels it and sends it again whole', async () => {
    const cut = printer.hold(printerJobName('r7'), { state: 'completed', reasons: [] });
    interrupted('r7');
    const job = await finish('r7');
    expect(printer.cancelled).toEqual([cut]);
    expect(printer.sent).toEqual([printerJobName('r7')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2', earlierPrinterJobs: [cut] });
  });

  it("an earlier attempt's printer job is never taken for the current attempt", async () => {
    // Attempt 1 created printer job `earlier` (it printed part of the document, then was
    // cancelled); attempt 2 crashed before its Create-Job reached the printer.
    const earlier = printer.hold(printerJobName('r8'), { state: 'completed', reasons: [] });
    interrupted('r8', earlier);
    ledger.move('r8', 'spooled', { nextRetryAt: 0 });
    ledger.move('r8', 'submitting', { attempt: true });
    const job = await finish('r8');
    expect(printer.cancelled).toEqual([]);
    expect(printer.sent).toEqual([printerJobName('r8')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2', earlierPrinterJobs: [earlier] });
  });

  it('a printer that reports fewer K octets than the document holds it cut, even when it was flushed', async () => {
    const short = printer.hold(printerJobName('r9'), { state: 'completed', reasons: [], kOctets: 2 });
    interrupted('r9', short, 'flushed', 3000);
    const job = await finish('r9');
    expect(printer.cancelled).toEqual([short]);
    expect(printer.sent).toEqual([printerJobName('r9')]);
    expect(job?.state).toBe('completed');
  });

  it('a printer that reports every K octet of the document holds it whole, even when not recorded flushed', async () => {
    const whole = printer.hold(printerJobName('r10'), { state: 'completed', reasons: [], kOctets: 3 });
    interrupted('r10', whole, 'none', 3000);
    const job = await finish('r10');
    expect([printer.sent, printer.cancelled]).toEqual([[], []]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: whole });
  });

  it('a connection the agent saw break after every byte was flushed: the printed part is not taken for the whole', async () => {
    // A printer that cannot tell (no K octets) took the cut as the document's end and completed job 1.
    interrupted('r12');
    ledger.move('r12', 'spooled', { nextRetryAt: 0 });
    printer.failNext = 'cut-after-flush';
    const job = await finish('r12');
    expect(printer.cancelled).toEqual(['1']);
    expect(printer.sent).toEqual([printerJobName('r12')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2', earlierPrinterJobs: ['1'] });
  });

  it('Create-Job answered, Send-Document refused: the empty job is cancelled before the next attempt', async () => {
    interrupted('r13');
    ledger.move('r13', 'spooled', { nextRetryAt: 0 });
    printer.failNext = 'refused-after-create';
    const job = await finish('r13');
    expect(printer.cancelled).toEqual(['1']);
    expect(printer.jobs.get('1')?.state.state).toBe('cancelled');
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2' });
  });

  it('a Cancel-Job whose answer was lost: the job the agent cancelled is not adopted on the next look', async () => {
    // Flushed before a crash, but the bytes never arrived: the printer job still waits for them.
    const waiting = printer.hold(printerJobName('r14'), {
      state: 'held',
      reasons: ['job-data-insufficient'],
    });
    interrupted('r14', waiting, 'flushed');
    printer.loseCancelAnswer = true;
    const job = await finish('r14');
    expect(printer.cancelled).toEqual([waiting, waiting]);
    expect(printer.sent).toEqual([printerJobName('r14')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2' });
  });

  it('a Cancel-Job whose answer was lost, of a job cut within its last K octet: not adopted on the next look', async () => {
    // Cut after 2,600 of 3,000 bytes: the cancelled job reports 3 K octets, as the whole would.
    const cut = printer.hold(printerJobName('r16'), { state: 'held', reasons: ['job-data-insufficient'] });
    interrupted('r16', cut, 'none', 3000);
    printer.loseCancelAnswer = true;
    printer.upcoming.set(cut, [
      { state: 'held', reasons: ['job-data-insufficient'] },
      { state: 'cancelled', reasons: [], kOctets: 3 },
    ]);
    const job = await finish('r16');
    expect(printer.cancelled).toEqual([cut, cut]);
    expect(printer.sent).toEqual([printerJobName('r16')]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: '2', earlierPrinterJobs: [cut] });
  });

  it('a job still printing that may hold the whole document is judged once it ended, not cancelled', async () => {
    // The answer to the document was lost: job 1 is printing; it ends reporting every K octet.
    const printing = printer.hold(printerJobName('r15'), { state: 'processing', reasons: [] });
    interrupted('r15', printing, 'none', 3000);
    printer.upcoming.set(printing, [
      { state: 'processing', reasons: [] },
      { state: 'completed', reasons: [], kOctets: 3 },
    ]);
    const job = await finish('r15');
    expect([printer.sent, printer.cancelled]).toEqual([[], []]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: printing });
  });

  it('a backend that hands the document over in one step (no flush record): a job found by name is watched', async () => {
    printer.reportsDocumentSent = false;
    const found = printer.hold(printerJobName('r11'), { state: 'completed', reasons: [] });
    interrupted('r11');
    const job = await finish('r11');
    expect([printer.sent, printer.cancelled]).toEqual([[], []]);
    expect(job).toMatchObject({ state: 'completed', printerJobId: found });
  });
});
