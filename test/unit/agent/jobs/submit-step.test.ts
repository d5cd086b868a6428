/**
 * SubmitStep on its own: what a submission carries to the printer, how an accepted job is
 * recorded, the give-up rule, the waits before a try, and each kind of failure (refused before
 * printing: back to spooled with its delay; outcome unknown: left submitting for the repair),
 * with a printer fake whose answers the test scripts (the hardware boundary here).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeldDocuments } from '../../../../src/agent/jobs/held-documents.js';
import { JobOutcomes } from '../../../../src/agent/jobs/job-outcomes.js';
import type { JobControl, JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { printerJobName } from '../../../../src/agent/jobs/job-runner-types.js';
import { refusedBeforePrinting, SubmitStep } from '../../../../src/agent/jobs/submit-step.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import type { JobOffer } from '../../../../src/protocol/connector-channel.js';
import type { LedgerJob } from '../../../../src/store/job-ledger.js';
import { quietControl } from '../../../support/job-control.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';

/** What a scripted try does at the printer before it answers (or fails). */
interface Script {
  created?: string;
  flushed?: boolean;
  sent?: boolean;
  fail?: Error;
  answer?: Partial<SubmittedJob>;
}

/** A printer whose next tries follow `scripts` (then it takes jobs as the recording printer does). */
class ScriptedPrinter extends RecordingPrinter {
  readonly scripts: Script[] = [];
  override async submit(job: BackendJob): Promise<SubmittedJob> {
    const script = this.scripts.shift();
    if (!script) return super.submit(job);
    this.submissions.push({ job, bytes: job.documentBytes, file: undefined });
    if (script.created !== undefined) job.onPrinterJobCreated?.(script.created);
    if (script.flushed) job.onDocumentFlushed?.();
    if (script.sent) job.onDocumentSent?.();
    if (script.fail) throw script.fail;
    return { printerJobId: script.created ?? '7', ...script.answer };
  }
}

const refusedWith = (cause: string) =>
  new RetryableError('printer_unreachable', `connect ${cause}`, {
    cause: Object.assign(new Error(cause), { code: cause }),
  });

describe('SubmitStep', () => {
  let rig: JobStepRig;
  let clock: ManualClock;
  let held: HeldDocuments;
  let printer: ScriptedPrinter;
  let step: SubmitStep;
  let deps: JobRunnerDeps;

  const build = (extra: Partial<JobRunnerDeps> = {}) => {
    deps = rig.deps({ random: () => 1, ...extra });
    held = new HeldDocuments();
    step = new SubmitStep(deps, new JobOutcomes(deps), held);
  };

  beforeEach(() => {
    clock = new ManualClock();
    rig = new JobStepRig({ logLevel: 'debug', clock, jobs: { retry_initial_ms: 100, retry_max_ms: 1000 } });
    build();
    printer = new ScriptedPrinter();
  });
  afterEach(() => rig.close());

  /** A job downloaded to its spool file (or, with `spool: false`, kept in memory only). */
  function spooled(id: string, offer: JobOffer = jobOffer(id), spool = true): LedgerJob {
    rig.ledger.add(offer);
    rig.ledger.move(id, 'downloading');
    if (!spool) return rig.ledger.move(id, 'spooled', {});
    // Not the spool target's name: the step must send the file the ledger names.
    const spoolPath = join(rig.spoolDir, `${id}-downloaded.pdf`);
    writeFileSync(spoolPath, '%PDF-');
    return rig.ledger.move(id, 'spooled', { spoolPath });
  }

  const run = (job: LedgerJob, control: JobControl = quietControl()) =>
    step.run(job, printer, control, rig.log.child({ job: job.jobId }));

  describe('what the printer gets', () => {
    it('the spool file, the format, the printer job name, the document name and the user', async () => {
      const job = spooled('j');
      await run(job);
      const sent = printer.submitted[0] as BackendJob;
      expect(sent).toMatchObject({
        documentPath: job.spoolPath,
        documentFormat: 'application/pdf',
        jobName: printerJobName('j'),
        documentName: 'a.pdf',
        userName: 'u@example.com',
        ticket: { copies: 1 },
      });
      expect('documentBytes' in sent).toBe(false);
    });

    it("names the user by name without an email, and 'printrelay' without either", async () => {
      const offer = (id: string, email: string, name: string) => ({
        ...jobOffer(id),
        user: { id: 'u', email, name },
      });
      await run(spooled('a', offer('a', '', 'Una')));
      await run(spooled('b', offer('b', '', '')));
      expect(printer.submitted.map((job) => job.userName)).toEqual(['Una', 'printrelay']);
    });

    it('the bytes of a document held in memory, with its spool target as the path; forgotten once accepted', async () => {
      const job = spooled('j', jobOffer('j'), false);
      held.keep('j', Buffer.from('%PDF-held'));
      await run(job);
      expect(printer.submissions[0]).toMatchObject({
        bytes: Buffer.from('%PDF-held'),
        job: { documentPath: join(rig.spoolDir, 'j.pdf') },
      });
      expect(held.get('j')).toBeUndefined();
      expect(held.held()).toBe(0);
    });

    it('the ticket the printer settings adjusted, each warning logged and sent with the printing event', async () => {
      build({
        adjustTicket: async (printerId, ticket) => ({
          ticket: { ...ticket, copies: 2, printer: printerId } as typeof ticket,
          warnings: ['tray "Manual" is disabled'],
        }),
      });
      printer.scripts.push({ created: '5', answer: { notApplied: ['staple not applied'] } });
      await run(spooled('j'));
      expect(printer.submitted[0]?.ticket).toEqual({ copies: 2, printer: 'p1' });
      expect(rig.logged('print ticket adjusted by the printer settings')).toEqual([
        expect.objectContaining({ level: 'warn', warning: 'tray "Manual" is disabled' }),
      ]);
      expect(rig.events).toEqual([
        {
          kind: 'printing',
          printer_job_id: '5',
          message: 'tray "Manual" is disabled\nstaple not applied',
        },
      ]);
    });
  });

  describe('an accepted job', () => {
    it('is submitted with the printer job id, the document answered recorded in the same move', async () => {
      printer.scripts.push({ created: '9', flushed: true, sent: true });
      const moved = await run(spooled('j'));
      expect(moved).toMatchObject({ state: 'submitted', printerJobId: '9', documentSent: true, attempts: 1 });
      // Nothing adjusted, nothing left out: the printing event carries no message.
      expect(rig.events).toEqual([{ kind: 'printing', printer_job_id: '9' }]);
      expect(rig.ledger.get('j')).toMatchObject({ state: 'submitted', documentSent: true });
    });

    it('is submitted without the document answered when the printer never said so', async () => {
      printer.scripts.push({ created: '9', flushed: true });
      expect(await run(spooled('j'))).toMatchObject({ state: 'submitted', documentSent: false });
    });

    it('logs a flush the ledger could not record, with the printer job, and still submits', async () => {
      const markDocumentFlushed = rig.ledger.markDocumentFlushed.bind(rig.ledger);
      rig.ledger.markDocumentFlushed = () => {
        throw new Error('SQLITE_BUSY: database is locked');
      };
      printer.scripts.push({ created: '9', flushed: true, sent: true });
      const moved = await run(spooled('j'));
      rig.ledger.markDocumentFlushed = markDocumentFlushed;
      expect(moved.state).toBe('submitted');
      expect(rig.logged('could not record the document as flushed')).toEqual([
        expect.objectContaining({
          level: 'warn',
          error: 'SQLITE_BUSY: database is locked',
          printerJobId: '9',
        }),
      ]);
    });
  });

  describe('the give-up rule', () => {
    it('fails a job first tried more than give_up_after_s ago, naming its last error', async () => {
      printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
      const first = await run(spooled('j'));
      clock.set((first.firstTryAt as number) + 60_000);
      expect(await run(rig.ledger.get('j') as LedgerJob)).toMatchObject({ state: 'submitted' });

      printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
      const other = await run(spooled('k'));
      clock.set((other.firstTryAt as number) + 60_001);
      const failed = await run({ ...(rig.ledger.get('k') as LedgerJob), nextRetryAt: undefined });
      expect(failed).toMatchObject({ state: 'failed', lastError: 'gave up after 60 s: server-error-busy' });
      expect(printer.submitted.map((job) => job.jobName)).toEqual(
        ['j', 'j', 'k'].map((id) => printerJobName(id)),
      );
    });

    it("names 'printer unavailable' when no error was recorded", async () => {
      const job = { ...spooled('j'), firstTryAt: clock.now() - 60_001 };
      expect(await run(job)).toMatchObject({
        state: 'failed',
        lastError: 'gave up after 60 s: printer unavailable',
      });
      expect(printer.submitted).toEqual([]);
    });
  });

  describe('the waits before a try', () => {
    /** Controls whose wake the test aborts and whose previous job the test ends. */
    const controls = (previous?: Promise<void>) => {
      const wake = new AbortController();
      const control: JobControl = {
        ...quietControl(),
        wake: wake.signal,
        ...(previous ? { previousJobEnded: () => previous } : {}),
      };
      return { control, wake };
    };
    const ending = () => {
      let end: () => void = () => {};
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      return { ended, end };
    };

    it('a job due later is woken (stop, cancel) without trying the printer', async () => {
      const { control, wake } = controls();
      const job = { ...spooled('j'), nextRetryAt: clock.now() + 60_000 };
      const running = run(job, control);
      wake.abort();
      expect(await running).toMatchObject({ state: 'spooled', attempts: 0 });
      expect(printer.submitted).toEqual([]);
    });

    it("a job due later goes as soon as the printer's previous job ends", async () => {
      const { ended, end } = ending();
      const { control } = controls(ended);
      const running = run({ ...spooled('j'), nextRetryAt: clock.now() + 60_000 }, control);
      end();
      expect(await running).toMatchObject({ state: 'submitted' });
    });

    it('refused busy while its previous job is there: waits for that job, the ceiling as its delay', async () => {
      build({ jobs: { ...rig.jobs, retry_max_ms: 60_000 } });
      const { ended, end } = ending();
      printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
      const refused = await run(spooled('j'), controls(ended).control);
      expect(refused).toMatchObject({ state: 'spooled', nextRetryAt: clock.now() + 60_000 });
      // The previous job taken at the refusal ends the wait, though the control no longer has one.
      const running = run(refused, controls().control);
      end();
      expect(await running).toMatchObject({ state: 'submitted' });
    });

    it('a printer that answered busy with our previous job there: the next job waits for that job first', async () => {
      build({ jobs: { ...rig.jobs, retry_max_ms: 60_000 } });
      const first = ending();
      printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
      await run(spooled('j'), controls(first.ended).control);
      const second = ending();
      const { control, wake } = controls(second.ended);
      const running = run(spooled('k'), control);
      await Promise.resolve();
      expect(printer.submitted).toHaveLength(1);
      second.end();
      expect(await running).toMatchObject({ state: 'submitted' });
      // Woken while waiting so: back unchanged, the printer not asked.
      const third = ending();
      const waiting = run(spooled('m'), { ...control, previousJobEnded: () => third.ended });
      wake.abort();
      expect(await waiting).toMatchObject({ state: 'spooled', attempts: 0 });
      expect(printer.submitted.map((job) => job.jobName)).toEqual(['j', 'k'].map((id) => printerJobName(id)));
    });

    it('a job with no previous job of ours at the printer does not wait', async () => {
      build({ jobs: { ...rig.jobs, retry_max_ms: 60_000 } });
      printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
      await run(spooled('j'), controls(ending().ended).control);
      expect(await run(spooled('k'), controls().control)).toMatchObject({ state: 'submitted' });
    });
  });

  describe('the waits before a try, timed', () => {
    beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
    afterEach(() => vi.useRealTimers());

    it('a job due in 30 ms is tried after 30 ms, not before', async () => {
      const running = run({ ...spooled('j'), nextRetryAt: clock.now() + 30 });
      await vi.advanceTimersByTimeAsync(29);
      expect(printer.submitted).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(await running).toMatchObject({ state: 'submitted' });
    });

    it.each([
      ['due now', 0],
      ['overdue', -1],
    ])(
      'a job %s at a printer that takes one job at a time waits for our previous job there',
      async (_what, due) => {
        build({ jobs: { ...rig.jobs, retry_max_ms: 60_000 } });
        const pending = new Promise<void>(() => {});
        const control: JobControl = { ...quietControl(), previousJobEnded: () => pending };
        printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
        await run(spooled('j'), control);
        const running = run({ ...spooled('k'), nextRetryAt: clock.now() + due }, control);
        await vi.advanceTimersByTimeAsync(59_999);
        expect(printer.submitted).toHaveLength(1);
        await vi.advanceTimersByTimeAsync(1);
        expect(await running).toMatchObject({ state: 'submitted' });
      },
    );
  });

  it('forgets what it kept of a job: the previous job it waited for and its document in memory', async () => {
    build({ jobs: { ...rig.jobs, retry_max_ms: 60_000 } });
    const pending = new Promise<void>(() => {});
    printer.scripts.push({ fail: new RetryableError('printer_busy', 'server-error-busy') });
    const refused = await run(spooled('j'), { ...quietControl(), previousJobEnded: () => pending });
    held.keep('j', Buffer.from('%PDF-held'));
    step.forget('j');
    expect(held.get('j')).toBeUndefined();
    // No previous job to wait for any more: tried at once.
    expect(await run({ ...refused, nextRetryAt: undefined })).toMatchObject({ state: 'submitted' });
  });

  it.each([
    ['printer_unreachable', 'ENETUNREACH', true],
    ['printer_unreachable', 'ENOTFOUND', true],
    ['printer_unreachable', 'EAI_AGAIN', true],
    ['printer_bad_response', 'ECONNREFUSED', false],
    ['printer_unreachable', 'ECONNABORTED', false],
  ])('refusedBeforePrinting: %s (%s) -> %s', (code, cause, expected) => {
    const error = new RetryableError(code, 'x', { cause: Object.assign(new Error(cause), { code: cause }) });
    expect(refusedBeforePrinting(error)).toBe(expected);
  });

  describe('refused before printing', () => {
    it('a busy printer: back to spooled, 2 ms doubling per consecutive busy answer, reset by an accepted job', async () => {
      const busy = () => ({ fail: new RetryableError('printer_busy', 'server-error-busy') });
      printer.scripts.push(busy(), busy(), {}, busy());
      const delays: number[] = [];
      let job = spooled('j');
      for (let i = 0; i < 2; i++) {
        // Busy for 5 s: the second answer is reported to the cloud as a wait.
        if (i === 1) clock.advance(5000);
        job = await run({ ...job, nextRetryAt: undefined });
        expect(job).toMatchObject({ state: 'spooled', lastError: 'server-error-busy' });
        delays.push((job.nextRetryAt as number) - clock.now());
      }
      expect(await run({ ...job, nextRetryAt: undefined })).toMatchObject({ state: 'submitted' });
      const next = await run(spooled('k'));
      delays.push((next.nextRetryAt as number) - clock.now());
      expect(delays).toEqual([2, 4, 2]);
      expect(rig.logged('printer busy or unreachable; will retry')).toEqual([
        expect.objectContaining({ level: 'debug', error: 'server-error-busy', delayMs: 2 }),
        expect.objectContaining({ level: 'debug', error: 'server-error-busy', delayMs: 4 }),
        expect.objectContaining({ level: 'debug', error: 'server-error-busy', delayMs: 2 }),
      ]);
      expect(rig.events.filter((event) => event.kind === 'waiting')).toEqual([
        { kind: 'waiting', message: expect.stringContaining('printer busy (server-error-busy)') },
      ]);
    });

    it.each(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])(
      'a printer unreachable (%s): back to spooled after the backoff of its attempts',
      async (cause) => {
        printer.scripts.push({ fail: refusedWith(cause) });
        const moved = await run(spooled('j'));
        // Attempt 0 before this try: retry_initial_ms with the jitter's top (random 1).
        expect(moved).toMatchObject({ state: 'spooled', nextRetryAt: clock.now() + 100 });
        expect(rig.events).toEqual([
          { kind: 'waiting', message: expect.stringContaining('printer offline') },
        ]);
      },
    );

    it("waits the printer's retry-after when it is longer than the backoff", async () => {
      printer.scripts.push({
        fail: new RetryableError('printer_error', 'server-error-service-unavailable', { retryAfterMs: 750 }),
      });
      expect(await run(spooled('j'))).toMatchObject({ state: 'spooled', nextRetryAt: clock.now() + 750 });
      printer.scripts.push({
        fail: new RetryableError('printer_error', 'server-error-service-unavailable', { retryAfterMs: 50 }),
      });
      expect(await run(spooled('k'))).toMatchObject({ state: 'spooled', nextRetryAt: clock.now() + 100 });
    });
  });

  describe('outcome unknown', () => {
    it('a reset mid-way leaves the job submitting, due now, for the repair; the flush proves nothing', async () => {
      printer.scripts.push({ flushed: true, fail: refusedWith('ECONNRESET') });
      clock.advance(5000);
      const moved = await run(spooled('j'));
      expect(moved).toMatchObject({
        state: 'submitting',
        nextRetryAt: clock.now(),
        lastError: 'connect ECONNRESET',
        documentFlushed: false,
        documentSent: false,
        printerJobId: undefined,
      });
      expect(rig.logged('Print-Job outcome unknown; checking the printer before retrying')).toEqual([
        expect.objectContaining({ level: 'warn', error: 'connect ECONNRESET' }),
      ]);
    });

    it('a refusal after Create-Job made a printer job records that job', async () => {
      printer.scripts.push({ created: '12', fail: new RetryableError('printer_busy', 'server-error-busy') });
      expect(await run(spooled('j'))).toMatchObject({
        state: 'submitting',
        printerJobId: '12',
        documentSent: false,
      });
    });

    it('a refusal after the printer answered the document records it sent', async () => {
      printer.scripts.push({ sent: true, fail: new RetryableError('printer_busy', 'server-error-busy') });
      expect(await run(spooled('j'))).toMatchObject({
        state: 'submitting',
        printerJobId: undefined,
        documentSent: true,
      });
    });
  });

  it('passes on an error trying again cannot fix, leaving the job submitting', async () => {
    const refused = new PermanentError('document_format_not_supported', 'format not supported');
    printer.scripts.push({ fail: refused });
    await expect(run(spooled('j'))).rejects.toBe(refused);
    expect(rig.ledger.get('j')?.state).toBe('submitting');
  });
});
