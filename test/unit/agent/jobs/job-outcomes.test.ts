import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobOutcomes } from '../../../../src/agent/jobs/job-outcomes.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import { createLogger, type Logger } from '../../../../src/log/logger.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger, type LedgerJob } from '../../../../src/store/job-ledger.js';
import type { NewJobEvent } from '../../../../src/store/outbox.js';
import { jobOffer } from '../../../support/job-offers.js';

const JOBS = {
  retry_initial_ms: 250,
  retry_max_ms: 8_000,
  give_up_after_s: 60,
  download_attempts: 5,
  status_poll_ms: 50,
};

interface Emitted {
  jobId: string;
  event: NewJobEvent;
}

describe('JobOutcomes', () => {
  let db: AgentDatabase;
  let ledger: JobLedger;
  let clock: ManualClock;
  let emitted: Emitted[];
  let lines: Record<string, unknown>[];
  let log: Logger;
  let outcomes: JobOutcomes;

  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    ledger = new JobLedger(db, clock);
    emitted = [];
    lines = [];
    log = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    outcomes = new JobOutcomes({
      ledger,
      emit: (jobId, event) => emitted.push({ jobId, event }),
      download: async () => undefined,
      jobs: JOBS,
      spoolDir: '/nowhere',
      clock,
      logger: log,
    });
  });
  afterEach(() => db.close());

  /** A job of the ledger moved as far as `submitting`. */
  function submitting(id: string): LedgerJob {
    ledger.add(jobOffer(id));
    ledger.move(id, 'downloading');
    ledger.move(id, 'spooled', { spoolPath: `/spool/${id}` });
    return ledger.move(id, 'submitting', { attempt: true });
  }

  describe('submittedAs', () => {
    it('moves the job to submitted with its printer job and sends printing with the notes, one a line', () => {
      const moved = outcomes.submittedAs(submitting('a'), '41', log, [
        'tray 2 replaced by tray 1',
        'duplex not applied',
      ]);
      expect(moved).toMatchObject({ state: 'submitted', printerJobId: '41' });
      expect(ledger.get('a')).toMatchObject({ state: 'submitted', printerJobId: '41', documentSent: false });
      expect(emitted).toEqual([
        {
          jobId: 'a',
          event: {
            kind: 'printing',
            printer_job_id: '41',
            message: 'tray 2 replaced by tray 1\nduplex not applied',
          },
        },
      ]);
      expect(lines).toContainEqual(
        expect.objectContaining({ printerJobId: '41', msg: 'submitted to the printer' }),
      );
    });

    it('sends printing without a message when there is no note', () => {
      outcomes.submittedAs(submitting('a'), '41', log);
      outcomes.submittedAs(submitting('b'), '42', log, []);
      expect(emitted.map((e) => e.event)).toEqual([
        { kind: 'printing', printer_job_id: '41' },
        { kind: 'printing', printer_job_id: '42' },
      ]);
    });

    it('records the document as sent only when the printer answered the request carrying it', () => {
      outcomes.submittedAs(submitting('a'), '41', log, [], undefined, true);
      expect(ledger.get('a')).toMatchObject({ documentSent: true, documentFlushed: true });
      outcomes.submittedAs(submitting('b'), '42', log, [], undefined);
      expect(ledger.get('b')).toMatchObject({ documentSent: false, documentFlushed: false });
    });

    it("keeps the printer's word on the job's state for the watch, to be taken once", () => {
      outcomes.submittedAs(submitting('a'), '41', log, [], 'processing');
      outcomes.submittedAs(submitting('b'), '42', log);
      expect(outcomes.takeStateAtSubmit('a')).toBe('processing');
      expect(outcomes.takeStateAtSubmit('a')).toBeUndefined();
      expect(outcomes.takeStateAtSubmit('b')).toBeUndefined();
    });

    it('reports the next wait of a submitted job afresh', () => {
      const busy = new RetryableError('printer_unreachable', 'refused', { cause: { code: 'ECONNREFUSED' } });
      const job = submitting('a');
      outcomes.reportWaiting('a', busy, 2_000);
      outcomes.submittedAs(job, '41', log);
      outcomes.reportWaiting('a', busy, 2_000);
      expect(emitted.filter((e) => e.event.kind === 'waiting')).toHaveLength(2);
    });
  });

  it('cancel moves the job to cancelled, sends cancelled and logs it', () => {
    const moved = outcomes.cancel(submitting('a'), log);
    expect(moved.state).toBe('cancelled');
    expect(ledger.get('a')?.state).toBe('cancelled');
    expect(emitted).toEqual([{ jobId: 'a', event: { kind: 'cancelled' } }]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'job cancelled' }));
  });

  it('fail moves the job to failed with the reason, sends failed with code 3011 and logs the reason', () => {
    const moved = outcomes.fail(submitting('a'), 'the printer refused the document', log);
    expect(moved).toMatchObject({ state: 'failed', lastError: 'the printer refused the document' });
    expect(ledger.get('a')).toMatchObject({ state: 'failed', lastError: 'the printer refused the document' });
    expect(emitted).toEqual([
      {
        jobId: 'a',
        event: { kind: 'failed', error_code: 3011, message: 'the printer refused the document' },
      },
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        error: 'the printer refused the document',
        msg: 'job failed',
      }),
    );
  });

  it('step moves and queues the event in one transaction: an event that cannot be queued undoes the move', () => {
    const failing = new JobOutcomes({
      ledger,
      emit: () => {
        throw new Error('outbox full');
      },
      download: async () => undefined,
      jobs: JOBS,
      spoolDir: '/nowhere',
      clock,
      logger: log,
    });
    submitting('a');
    expect(() => failing.step('a', 'cancelled', {}, { kind: 'cancelled' })).toThrow('outbox full');
    expect(ledger.get('a')?.state).toBe('submitting');
  });

  describe('reportWaiting', () => {
    it('sends waiting with the reason and the retry delay for a retryable printer problem', () => {
      const offline = new RetryableError('printer_unreachable', 'refused', {
        cause: { code: 'ECONNREFUSED' },
      });
      outcomes.reportWaiting('a', offline, 1_500);
      expect(emitted).toEqual([
        {
          jobId: 'a',
          event: { kind: 'waiting', message: 'waiting: printer offline (connection refused), retry in 2 s' },
        },
      ]);
    });

    it('sends nothing for an error that is not retryable, even one naming a printer problem', () => {
      outcomes.reportWaiting('a', new PermanentError('printer_unreachable', 'refused'), 1_500);
      outcomes.reportWaiting('a', new Error('printer offline'), 1_500);
      expect(emitted).toEqual([]);
    });

    it('sends nothing for a retryable error that is no printer or spool problem', () => {
      outcomes.reportWaiting('a', new RetryableError('cloud_unreachable', 'the cloud did not answer'), 1_500);
      expect(emitted).toEqual([]);
    });
  });

  describe('require', () => {
    it("answers the ledger's job", () => {
      submitting('a');
      expect(outcomes.require('a')).toMatchObject({ jobId: 'a', state: 'submitting' });
    });

    it('throws a permanent not_found error naming a job the ledger does not have', () => {
      const error = (() => {
        try {
          outcomes.require('ghost');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(PermanentError);
      expect(error).toMatchObject({ code: 'not_found', message: 'job ghost not in the ledger' });
    });
  });

  it('backoff doubles from the configured first delay up to the configured ceiling, with half jitter', () => {
    expect(outcomes.backoff()).toEqual({ initialMs: 250, maxMs: 8_000, factor: 2, jitter: 0.5 });
  });
});
