import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InlineDocuments,
  inlineOrFetch,
  offerWithDocument,
} from '../../../../src/agent/jobs/inline-documents.js';
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
import { watchCommits } from '../../../support/sqlite-commits.js';

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

/** Counts the ledger's reads of a job (JobLedger.get, the moves' own included). */
function countReads(ledger: JobLedger): { count: number } {
  const reads = { count: 0 };
  const get = ledger.get.bind(ledger);
  ledger.get = (jobId) => {
    reads.count++;
    return get(jobId);
  };
  return reads;
}

describe('commits of a whole job (docs/agent-jobs.md, "Commits per job")', () => {
  let rig: JobStepRig;
  beforeEach(() => {
    rig = new JobStepRig({ clock: systemClock });
  });
  afterEach(() => rig.close());

  /**
   * One job through the real loop and runner on a Create-Job printer that takes it at once, from
   * its offer to `completed`: the commits it made (the outbox's batch answers aside: none is sent
   * here) and the channel claims it sent.
   */
  async function commitsOfOneJob(inlineDocument: Buffer | undefined) {
    const offer = jobOffer('j1', {
      size: DOCUMENT.length,
      sha256: createHash('sha256').update(DOCUMENT).digest('hex'),
    });
    const inline = new InlineDocuments(rig.log);
    const claims: string[] = [];
    let completed = () => {};
    const ended = new Promise<void>((resolve) => {
      completed = resolve;
    });
    const deps = rig.deps({
      inline,
      download: inlineOrFetch(
        inline,
        {
          available: () => true,
          claim: async (jobId) => {
            claims.push(jobId);
            return { type: 'claim_result', claim_id: 'c1', job_id: jobId, status: 200 };
          },
        },
        async () => Buffer.from(DOCUMENT),
        rig.log,
      ),
    });
    const emit = deps.emit;
    deps.emit = (jobId, event) => {
      emit(jobId, event);
      if (event.kind === 'completed') completed();
    };
    const printer = new CreateJobPrinter(rig.ledger);
    const loop = rig.loop(new JobRunner(deps), () => printer, { emit: deps.emit });
    loop.start();
    const commits = watchCommits(rig.db);
    const reads = countReads(rig.ledger);
    offerWithDocument((o, held) => loop.offer(o, held), inline, offer, inlineDocument);
    await ended;
    commits.restore();
    await loop.stop();
    return {
      commits: commits.commits,
      writes: commits.writes,
      reads: reads.count - printer.seen.length,
      claims,
      kinds: rig.kinds('j1'),
      held: inline.has('j1'),
    };
  }

  // Reads of the job (JobLedger.get, the printer fake's own aside): one at the start of each of
  // the runner's four phases, one in each of the three moves and the line's two checks for a job
  // that waits out of line (docs/performance.md, Round 6).
  // Writing statements: the job's insert and its moves, one INSERT per event (four), and the
  // flush record; before schema 8 each event also upserted event_seq (13 and 15, four more;
  // docs/performance.md, Round 7).
  it('a document that came with its offer: 5 commits, the offer recorded spooled with received and downloading', async () => {
    expect(await commitsOfOneJob(Buffer.from(DOCUMENT))).toEqual({
      commits: 5,
      writes: 9,
      reads: 9,
      claims: ['j1'],
      kinds: ['received', 'downloading', 'printing', 'completed'],
      held: false,
    });
  });

  it('a job recorded spooled with its document at hand: the claim refused (409) cancels it before any printer request, the document let go', async () => {
    const offer = jobOffer('j2', {
      size: DOCUMENT.length,
      sha256: createHash('sha256').update(DOCUMENT).digest('hex'),
    });
    const inline = new InlineDocuments(rig.log);
    expect(inline.keep(offer, Buffer.from(DOCUMENT))).toBe(true);
    rig.ledger.add(offer, 'spooled');
    const runner = new JobRunner(
      rig.deps({
        inline,
        discardEvents: (jobId) => rig.outbox.discardJob(jobId),
        download: inlineOrFetch(
          inline,
          {
            available: () => true,
            claim: async (jobId) => ({
              type: 'claim_result',
              claim_id: 'c2',
              job_id: jobId,
              status: 409,
              error: 'conflict',
            }),
          },
          async () => {
            throw new Error('no download expected');
          },
          rig.log,
        ),
      }),
    );
    const printer = new CreateJobPrinter(rig.ledger);
    await runner.run('j2', printer, quietControl());
    expect(rig.ledger.get('j2')?.state).toBe('cancelled');
    expect(printer.seen).toEqual([]);
    expect(inline.has('j2')).toBe(false);
  });

  // Two more reads than inline: the download's two moves (downloading, spooled) in one commit.
  it('a document downloaded: 6 commits (the offer, then the download with downloading)', async () => {
    expect(await commitsOfOneJob(undefined)).toEqual({
      commits: 6,
      writes: 11,
      reads: 11,
      claims: [],
      kinds: ['received', 'downloading', 'printing', 'completed'],
      held: false,
    });
  });
});
