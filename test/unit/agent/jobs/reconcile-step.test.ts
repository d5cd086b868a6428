/**
 * ReconcileStep on its own: the verdict on what an interrupted attempt's printer job holds
 * (judgeDocument, pure), and recover()'s moves, printer requests and log lines, with a printer
 * fake whose job states the test scripts (the hardware boundary here).
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobOutcomes } from '../../../../src/agent/jobs/job-outcomes.js';
import { printerJobName } from '../../../../src/agent/jobs/job-runner-types.js';
import { judgeDocument, ReconcileStep } from '../../../../src/agent/jobs/reconcile-step.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import type { Logger } from '../../../../src/log/logger.js';
import type {
  BackendJobState,
  PrinterBackend,
  SubmittedJob,
} from '../../../../src/printing/printer-backend.js';
import type { JobLedger, LedgerJob } from '../../../../src/store/job-ledger.js';
import type { NewJobEvent } from '../../../../src/store/outbox.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { JobStepRig } from '../../../support/job-step-rig.js';
import { jobOffer } from '../../../support/job-offers.js';
import { type KnownOfDocument, leaveInterrupted } from '../../../support/interrupted-job.js';

const WAITING: BackendJobState = { state: 'held', reasons: ['job-data-insufficient'] };

describe('judgeDocument', () => {
  const none = { documentSent: false, documentFlushed: false };
  const flushed = { documentSent: false, documentFlushed: true };
  const sent = { documentSent: true, documentFlushed: true };

  it('a job still waiting for its document holds none of it, whatever the ledger recorded', () => {
    expect(judgeDocument(sent, WAITING, true, 3)).toEqual({
      whole: false,
      why: 'the printer still waits for the document',
    });
  });

  it('a job that ended is judged on, even if its reasons still name the missing document', () => {
    const ended: BackendJobState = { state: 'completed', reasons: ['job-data-insufficient'] };
    expect(judgeDocument(flushed, ended, true, undefined)).toEqual({
      whole: true,
      why: 'every byte was with the operating system before the crash',
    });
  });

  it('a document the printer answered is whole, even when the printer reports fewer K octets', () => {
    const short: BackendJobState = { state: 'completed', reasons: [], kOctets: 1 };
    expect(judgeDocument(sent, short, true, 3)).toEqual({
      whole: true,
      why: 'the printer answered the document',
    });
  });

  it("compares the printer's K octets with the spooled document's", () => {
    const of = (kOctets: number): BackendJobState => ({ state: 'completed', reasons: [], kOctets });
    expect(judgeDocument(flushed, of(2), true, 3)).toEqual({
      whole: false,
      why: 'the printer holds 2 of 3 K octets',
    });
    expect(judgeDocument(none, of(3), true, 3)).toEqual({
      whole: true,
      why: 'the printer holds 3 of 3 K octets',
    });
  });

  it("without the spooled document's size, K octets decide nothing: the flush record does", () => {
    const reported: BackendJobState = { state: 'completed', reasons: [], kOctets: 3 };
    expect(judgeDocument(none, reported, true, undefined)).toEqual({
      whole: false,
      why: 'the agent stopped before every byte left it',
    });
  });

  it('a printer that takes a document in one step holds it whole', () => {
    expect(judgeDocument(none, { state: 'completed', reasons: [] }, false, undefined)).toEqual({
      whole: true,
      why: 'the printer takes a document whole or not at all',
    });
  });
});

/** A printer whose jobs move through scripted states, one per state query; counts the queries. */
class ScriptedPrinter extends FakePrinter {
  readonly uri = 'fake://scripted';
  reportsDocumentSent = true;
  queries = 0;
  readonly upcoming = new Map<string, BackendJobState[]>();
  async submit(): Promise<SubmittedJob> {
    throw new Error('recovery never submits');
  }
  override async jobState(id: string): Promise<BackendJobState> {
    this.queries++;
    const next = this.upcoming.get(id)?.shift();
    const job = this.jobs.get(id);
    if (next && job) job.state = next;
    return super.jobState(id);
  }
}

describe('ReconcileStep.recover', () => {
  let rig: JobStepRig;
  let dir: string;
  let clock: ManualClock;
  let ledger: JobLedger;
  let events: NewJobEvent[];
  let lines: Record<string, unknown>[];
  let log: Logger;
  let printer: ScriptedPrinter;
  let step: ReconcileStep;
  const stop = new AbortController().signal;

  beforeEach(() => {
    clock = new ManualClock();
    rig = new JobStepRig({ clock, jobs: { retry_max_ms: 10, status_poll_ms: 1 } });
    ({ spoolDir: dir, ledger, events, lines, log } = rig);
    const deps = rig.deps();
    step = new ReconcileStep(deps, new JobOutcomes(deps));
    printer = new ScriptedPrinter();
  });
  afterEach(() => rig.close());

  /** A job left in `submitting`, its spool file of `bytes` there, an id and what the ledger knew. */
  function interrupted(
    id: string,
    printerJobId?: string,
    document: KnownOfDocument = 'none',
    bytes = 3000,
  ): LedgerJob {
    // The offer's size is the test offer's 5 bytes: only the spool file says 3000.
    return leaveInterrupted(ledger, dir, id, { printerJobId, document, bytes });
  }

  const logged = (msg: string) => rig.logged(msg);

  it('fails the job when no printer job id was recorded and the printer cannot be asked by name', async () => {
    const job = interrupted('j');
    const blind: PrinterBackend = {
      uri: 'fake://blind',
      describe: () => printer.describe(),
      submit: () => printer.submit(),
      jobState: (id) => printer.jobState(id),
      cancel: (id) => printer.cancel(id),
      close: async () => {},
    };
    const moved = await step.recover(job, blind, stop, log);
    const reason = 'interrupted while submitting and the printer cannot be asked; restart the job';
    expect(moved).toMatchObject({ state: 'failed', lastError: reason });
    expect(events).toEqual([{ kind: 'failed', error_code: 3011, message: reason }]);
  });

  it('queues a job the printer never saw to be sent at once, and says so', async () => {
    clock.advance(12_345);
    const moved = await step.recover(interrupted('j'), printer, stop, log);
    expect(moved).toMatchObject({ state: 'spooled', nextRetryAt: clock.now() });
    expect(ledger.get('j')).toMatchObject({ state: 'spooled', nextRetryAt: clock.now() });
    expect(logged('interrupted job never reached the printer; submitting again')).toHaveLength(1);
  });

  it('watches a whole job found at the printer and logs the printer job and the verdict', async () => {
    const found = printer.hold(printerJobName('j'), { state: 'completed', reasons: [] });
    const moved = await step.recover(interrupted('j', undefined, 'flushed'), printer, stop, log);
    expect(moved).toMatchObject({ state: 'submitted', printerJobId: found });
    expect(printer.cancelled).toEqual([]);
    expect(logged('found the interrupted job at the printer; watching it')).toEqual([
      expect.objectContaining({
        printerJobId: found,
        why: 'every byte was with the operating system before the crash',
      }),
    ]);
  });

  it('cancels a job still waiting for its document, forgets the flush record and queues the job again', async () => {
    const held = printer.hold(printerJobName('j'), WAITING);
    clock.advance(500);
    const moved = await step.recover(interrupted('j', held, 'flushed'), printer, stop, log);
    expect(printer.cancelled).toEqual([held]);
    expect(moved).toMatchObject({
      state: 'spooled',
      nextRetryAt: clock.now(),
      printerJobId: held,
      documentFlushed: false,
      earlierPrinterJobs: [held],
    });
    expect(ledger.get('j')).toMatchObject({ state: 'spooled', documentFlushed: false, printerJobId: held });
    expect(
      logged('cancelled the interrupted job at the printer (document incomplete); sending it again'),
    ).toEqual([
      expect.objectContaining({
        level: 'info',
        printerJobId: held,
        printerState: 'held',
        why: 'the printer still waits for the document',
      }),
    ]);
  });

  it('warns when the printer already completed the cut job, and sends it again whole', async () => {
    const cut = printer.hold(printerJobName('j'), { state: 'completed', reasons: [] });
    const moved = await step.recover(interrupted('j', cut), printer, stop, log);
    expect(printer.cancelled).toEqual([cut]);
    expect(moved.state).toBe('spooled');
    expect(
      logged(
        'the printer completed the interrupted job with only part of the document; sending it again whole',
      ),
    ).toEqual([
      expect.objectContaining({
        level: 'warn',
        printerJobId: cut,
        why: 'the agent stopped before every byte left it',
      }),
    ]);
    expect(
      logged('cancelled the interrupted job at the printer (document incomplete); sending it again'),
    ).toEqual([]);
  });

  it('cancels again a printer job judged cut on an earlier look, without waiting for it', async () => {
    const cut = printer.hold(printerJobName('j'), { state: 'processing', reasons: [] });
    interrupted('j', cut);
    // The earlier look judged it cut and moved on before the Cancel-Job's answer came.
    const job = ledger.move('j', 'submitting', { printerJobId: cut, givenUpPrinterJob: cut });
    await step.recover(job, printer, stop, log);
    expect(printer.queries).toBe(1);
    expect(printer.cancelled).toEqual([cut]);
    expect(
      logged('cancelled the interrupted job at the printer (document incomplete); sending it again'),
    ).toEqual([
      expect.objectContaining({ printerState: 'processing', why: 'judged cut before; cancelling it again' }),
    ]);
  });

  it.each(['pending', 'processing'] as const)(
    'waits for a %s job that may hold the whole document to end before judging it',
    async (state) => {
      const queued = printer.hold(printerJobName('j'), { state, reasons: [] });
      printer.upcoming.set(queued, [
        { state, reasons: [] },
        { state: 'completed', reasons: [], kOctets: 3 },
      ]);
      const moved = await step.recover(interrupted('j', queued), printer, stop, log);
      expect(moved).toMatchObject({ state: 'submitted', printerJobId: queued });
      expect(printer.cancelled).toEqual([]);
    },
  );

  it('stops waiting as soon as the pending job shows it waits for its document', async () => {
    const pending = printer.hold(printerJobName('j'), {
      state: 'pending',
      reasons: ['job-data-insufficient'],
    });
    printer.upcoming.set(pending, [
      { state: 'pending', reasons: ['job-data-insufficient'] },
      { state: 'completed', reasons: [], kOctets: 3 },
    ]);
    await step.recover(interrupted('j', pending), printer, stop, log);
    expect(printer.queries).toBe(1);
    expect(printer.cancelled).toEqual([pending]);
  });

  it('does not wait for a printing job whose document the printer answered', async () => {
    const printing = printer.hold(printerJobName('j'), { state: 'processing', reasons: [] });
    printer.upcoming.set(printing, [
      { state: 'processing', reasons: [] },
      { state: 'completed', reasons: [] },
    ]);
    const moved = await step.recover(interrupted('j', printing, 'sent'), printer, stop, log);
    expect(printer.queries).toBe(1);
    expect(moved).toMatchObject({ state: 'submitted', printerJobId: printing });
  });

  it('does not wait for a printing job of a printer that takes documents in one step', async () => {
    printer.reportsDocumentSent = false;
    const printing = printer.hold(printerJobName('j'), { state: 'processing', reasons: [] });
    printer.upcoming.set(printing, [
      { state: 'processing', reasons: [] },
      { state: 'completed', reasons: [] },
    ]);
    const moved = await step.recover(interrupted('j', printing), printer, stop, log);
    expect(printer.queries).toBe(1);
    expect(moved).toMatchObject({ state: 'submitted', printerJobId: printing });
  });

  it("compares the printer's K octets with the spool file's size, not the offer's", async () => {
    const short = printer.hold(printerJobName('j'), { state: 'completed', reasons: [], kOctets: 1 });
    const moved = await step.recover(interrupted('j', short, 'flushed'), printer, stop, log);
    expect(printer.cancelled).toEqual([short]);
    expect(moved.state).toBe('spooled');
    expect(lines).toContainEqual(expect.objectContaining({ why: 'the printer holds 1 of 3 K octets' }));
  });

  it("compares them with the offer's size when the spool file is gone", async () => {
    const reported = printer.hold(printerJobName('j'), { state: 'completed', reasons: [], kOctets: 1 });
    const job = interrupted('j', reported, 'none');
    rmSync(job.spoolPath as string);
    const moved = await step.recover(job, printer, stop, log);
    expect(moved).toMatchObject({ state: 'submitted', printerJobId: reported });
    expect(lines).toContainEqual(expect.objectContaining({ why: 'the printer holds 1 of 1 K octets' }));
  });

  it("compares them with the offer's size for a document kept in memory only (no spool file)", async () => {
    ledger.add(jobOffer('m', { size: 3000 }));
    ledger.move('m', 'downloading');
    ledger.move('m', 'spooled');
    const job = ledger.move('m', 'submitting', { attempt: true });
    const short = printer.hold(printerJobName('m'), { state: 'completed', reasons: [], kOctets: 2 });
    ledger.recordPrinterJob('m', short);
    const moved = await step.recover({ ...job, printerJobId: short }, printer, stop, log);
    expect(printer.cancelled).toEqual([short]);
    expect(moved.state).toBe('spooled');
    expect(lines).toContainEqual(expect.objectContaining({ why: 'the printer holds 2 of 3 K octets' }));
  });
});
