import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import type {
  BackendJob,
  BackendJobState,
  PrinterBackend,
  PrinterDescription,
  SubmittedJob,
} from '../../../../src/printing/printer-backend.js';
import type { JobLedger, LedgerJob } from '../../../../src/store/job-ledger.js';
import { quietControl } from '../../../support/job-control.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig } from '../../../support/job-step-rig.js';

const DOCUMENT = Buffer.from('%PDF-1.4 one page');

/** A Create-Job printer fake: notes what the ledger held at each callback; Send-Document may fail. */
class CreateJobPrinter implements PrinterBackend {
  readonly uri = 'fake://printer';
  readonly reportsDocumentSent = true;
  readonly sendsDocumentBytes = true;
  failSend = false;
  readonly seen: { at: string; row: Pick<LedgerJob, 'printerJobId' | 'documentFlushed'> }[] = [];
  constructor(private readonly ledger: JobLedger) {}
  async describe(): Promise<PrinterDescription> {
    throw new Error('not used');
  }
  private note(at: string, jobName: string): void {
    const row = this.ledger.get(jobName.replace('printrelay-', '')) as LedgerJob;
    this.seen.push({ at, row: { printerJobId: row.printerJobId, documentFlushed: row.documentFlushed } });
  }
  async submit(job: BackendJob): Promise<SubmittedJob> {
    const id = String(41 + this.cancelled.length);
    job.onPrinterJobCreated?.(id);
    this.note('created', job.jobName);
    if (this.failSend) throw new RetryableError('printer_unreachable', 'Send-Document: ECONNRESET');
    job.onDocumentFlushed?.();
    this.note('flushed', job.jobName);
    job.onDocumentSent?.();
    return { printerJobId: id };
  }
  /** Printer jobs whose state the agent asked, and those it cancelled. */
  readonly asked: string[] = [];
  readonly cancelled: string[] = [];
  async jobState(printerJobId: string): Promise<BackendJobState> {
    if (this.cancelled.includes(printerJobId)) return { state: 'cancelled', reasons: [] };
    if (this.failSend) {
      // The empty job Create-Job left: still waiting for its document. Sends work from now on.
      this.asked.push(printerJobId);
      this.failSend = false;
      return { state: 'pending', reasons: ['job-data-insufficient'] };
    }
    return { state: 'completed', reasons: [] };
  }
  async cancel(printerJobId: string): Promise<void> {
    this.cancelled.push(printerJobId);
  }
  async close(): Promise<void> {}
}

describe('commits a job spares', () => {
  let rig: JobStepRig;
  let ledger: JobLedger;
  const runner = (download: () => Promise<unknown>) => new JobRunner(rig.deps({ download }));
  const kinds = (jobId: string) => rig.kinds(jobId);

  beforeEach(() => {
    rig = new JobStepRig({ clock: systemClock });
    ledger = rig.ledger;
    ledger.add(jobOffer('j1', { size: DOCUMENT.length }));
  });
  afterEach(() => rig.close());

  it('stays offered while the first download runs; leaves it with the download, its event in the same commit', async () => {
    let during: string | undefined;
    const spooled = await runner(async () => {
      during = ledger.get('j1')?.state;
      return Buffer.from(DOCUMENT);
    }).prepare('j1', quietControl());
    expect(during).toBe('offered');
    expect(spooled.state).toBe('spooled');
    expect(kinds('j1')).toEqual(['downloading']);
  });

  it('a first download that fails still moves the job to downloading with its event', async () => {
    const waiting = await runner(async () => {
      throw new RetryableError('network', 'GET /d/j1: ECONNREFUSED');
    }).prepare('j1', quietControl());
    expect(waiting).toMatchObject({ state: 'downloading', lastError: 'GET /d/j1: ECONNREFUSED' });
    expect(kinds('j1')).toEqual(['downloading']);
  });

  it('records the printer job of Create-Job with the flush, not before', async () => {
    const printer = new CreateJobPrinter(ledger);
    await runner(async () => Buffer.from(DOCUMENT)).run('j1', printer, quietControl());
    expect(printer.seen).toEqual([
      { at: 'created', row: { printerJobId: undefined, documentFlushed: false } },
      { at: 'flushed', row: { printerJobId: '41', documentFlushed: true } },
    ]);
    expect(ledger.get('j1')).toMatchObject({ state: 'completed', printerJobId: '41' });
  });

  it('a Send-Document that fails after Create-Job records that printer job with the move: the repair cancels it by id', async () => {
    const printer = new CreateJobPrinter(ledger);
    printer.failSend = true;
    await runner(async () => Buffer.from(DOCUMENT)).run('j1', printer, quietControl());
    // No findJobByName on this printer: the repair could only go by the recorded id.
    expect(printer.asked).toEqual(['41']);
    expect(printer.cancelled).toEqual(['41']);
    expect(ledger.get('j1')).toMatchObject({ state: 'completed', earlierPrinterJobs: ['41'] });
  });
});
