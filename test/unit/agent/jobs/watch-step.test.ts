/**
 * The watch step's first poll: at once when the printer's answer to the submission gave no state
 * or a final one, after the first poll interval when it said the job was not finished yet. Timers
 * are faked (setTimeout only), so "not yet" is exact, not a race.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type {
  BackendJob,
  BackendJobState,
  BackendJobStateName,
  PrinterBackend,
  PrinterDescription,
  SubmittedJob,
} from '../../../../src/printing/printer-backend.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger } from '../../../../src/store/job-ledger.js';
import { type NewJobEvent, Outbox } from '../../../../src/store/outbox.js';
import { jobOffer } from '../../../support/job-offers.js';
import { quietControl } from '../../../support/job-control.js';

/** A printer fake that answers the submission with `stateAtSubmit` and counts status polls. */
class AnsweringPrinter implements PrinterBackend {
  readonly uri = 'fake://answering';
  polls = 0;
  constructor(private readonly stateAtSubmit?: BackendJobStateName) {}
  async describe(): Promise<PrinterDescription> {
    throw new Error('not used');
  }
  async submit(_job: BackendJob): Promise<SubmittedJob> {
    return { printerJobId: '41', ...(this.stateAtSubmit ? { state: this.stateAtSubmit } : {}) };
  }
  async jobState(): Promise<BackendJobState> {
    this.polls++;
    return { state: 'completed', reasons: ['job-completed-successfully'], pagesCompleted: 1, pagesTotal: 1 };
  }
  async cancel(): Promise<void> {}
  async close(): Promise<void> {}
}

describe('watch at the printer: the first poll', () => {
  let dir: string;
  let db: AgentDatabase;
  let ledger: JobLedger;
  let outbox: Outbox;
  let runner: JobRunner;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    db = openAgentDatabase(':memory:');
    ledger = new JobLedger(db, systemClock);
    outbox = new Outbox(db, systemClock, { initialMs: 10, maxMs: 100, factor: 2, jitter: 0 });
    runner = new JobRunner({
      ledger,
      emit: (jobId: string, event: NewJobEvent) => outbox.add(jobId, event),
      download: async (_offer, target) => writeFileSync(target, '%PDF-'),
      jobs: {
        retry_initial_ms: 10,
        retry_max_ms: 40,
        give_up_after_s: 60,
        download_attempts: 5,
        status_poll_ms: 1000,
      },
      spoolDir: dir,
      clock: systemClock,
      logger: silentLogger(),
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Submits job `id` to `printer`, then starts watching it with setTimeout faked; returns the
   * watch's promise inside an object (returned bare, the async function would wait for it).
   */
  async function submitThenWatch(id: string, printer: AnsweringPrinter) {
    ledger.add(jobOffer(id, { url: '/d' }));
    await runner.prepare(id, quietControl());
    await runner.submit(id, printer, quietControl());
    expect(ledger.get(id)?.state).toBe('submitted');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const watching = runner.watch(id, printer, quietControl());
    await settle();
    return { watching };
  }

  /** Lets the watch run as far as it can without time passing (setImmediate is not faked). */
  async function settle(): Promise<void> {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  }

  it('waits the first interval (5 ms) when the printer said the job is still processing', async () => {
    const printer = new AnsweringPrinter('processing');
    const { watching } = await submitThenWatch('w1', printer);
    expect(printer.polls).toBe(0);
    vi.advanceTimersByTime(4);
    await settle();
    expect(printer.polls).toBe(0);
    vi.advanceTimersByTime(1);
    await settle();
    expect((await watching).state).toBe('completed');
    expect(printer.polls).toBe(1);
    expect(outbox.pendingFor('w1').map((e) => e.event.kind)).toEqual([
      'downloading',
      'printing',
      'completed',
    ]);
    expect(outbox.pendingFor('w1').at(-1)?.event).toMatchObject({ pages_printed: 1, pages_total: 1 });
  });

  it('polls at once when the printer said the job is completed (the poll brings the pages)', async () => {
    const printer = new AnsweringPrinter('completed');
    const { watching } = await submitThenWatch('w2', printer);
    expect(printer.polls).toBe(1);
    expect((await watching).state).toBe('completed');
  });

  it('polls at once when the printer gave no state', async () => {
    const printer = new AnsweringPrinter();
    const { watching } = await submitThenWatch('w3', printer);
    expect(printer.polls).toBe(1);
    expect((await watching).state).toBe('completed');
  });
});
