/**
 * WatchStep on its own, with a printer fake whose job states the test scripts (the hardware
 * boundary here): the page progress it reports, the one Cancel-Job of a cancelled job, polls
 * the printer could not answer, how each end state ends the job, and the poll intervals (timers
 * faked, setTimeout only, so an interval is exact, not a race).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobOutcomes } from '../../../../src/agent/jobs/job-outcomes.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { printerJobName } from '../../../../src/agent/jobs/job-runner-types.js';
import { WatchStep } from '../../../../src/agent/jobs/watch-step.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import type { Logger } from '../../../../src/log/logger.js';
import type { BackendJobState, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import type { JobLedger, LedgerJob } from '../../../../src/store/job-ledger.js';
import type { NewJobEvent } from '../../../../src/store/outbox.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { JobStepRig } from '../../../support/job-step-rig.js';
import { jobOffer } from '../../../support/job-offers.js';
import { quietControl } from '../../../support/job-control.js';

/** A printer answering each state query with the next scripted answer (the last one stays). */
class ScriptedPrinter extends FakePrinter {
  readonly uri = 'fake://scripted';
  readonly answers: (BackendJobState | Error)[] = [];
  polls = 0;
  async submit(): Promise<SubmittedJob> {
    throw new Error('the watch never submits');
  }
  override async jobState(): Promise<BackendJobState> {
    this.polls++;
    const answer = this.answers.length > 1 ? this.answers.shift() : this.answers[0];
    if (answer instanceof Error) throw answer;
    return answer as BackendJobState;
  }
}

describe('WatchStep', () => {
  let rig: JobStepRig;
  let ledger: JobLedger;
  let events: NewJobEvent[];
  let lines: Record<string, unknown>[];
  let log: Logger;
  let printer: ScriptedPrinter;
  let step: WatchStep;
  let deps: JobRunnerDeps;

  beforeEach(() => {
    rig = new JobStepRig({
      logLevel: 'debug',
      spoolDir: '/nowhere',
      jobs: { retry_max_ms: 10, status_poll_ms: 1 },
    });
    ({ ledger, events, lines, log } = rig);
    deps = rig.deps();
    step = new WatchStep(deps, new JobOutcomes(deps));
    printer = new ScriptedPrinter();
  });
  afterEach(() => {
    vi.useRealTimers();
    rig.close();
  });

  /** A job submitted to the printer as printer job 41. */
  function submitted(id: string): LedgerJob {
    ledger.add(jobOffer(id));
    ledger.move(id, 'downloading');
    ledger.move(id, 'spooled', { spoolPath: `/spool/${id}` });
    ledger.move(id, 'submitting', { attempt: true });
    printer.hold(printerJobName(id), { state: 'processing', reasons: [] });
    return ledger.move(id, 'submitted', { printerJobId: '41' });
  }

  const processing = (pagesCompleted?: number, pagesTotal?: number): BackendJobState => ({
    state: 'processing',
    reasons: [],
    ...(pagesCompleted === undefined ? {} : { pagesCompleted }),
    ...(pagesTotal === undefined ? {} : { pagesTotal }),
  });

  it('reports progress each time the printed pages grow, from 0, and ends completed with the pages', async () => {
    printer.answers.push(processing(), processing(0), processing(1), processing(1), processing(3, 3), {
      state: 'completed',
      reasons: [],
      pagesCompleted: 3,
      pagesTotal: 3,
    });
    const ended = await step.run(submitted('j'), printer, quietControl(), log);
    expect(ended.state).toBe('completed');
    expect(events).toEqual([
      { kind: 'progress', pages_printed: 0, pages_total: undefined },
      { kind: 'progress', pages_printed: 1, pages_total: undefined },
      { kind: 'progress', pages_printed: 3, pages_total: 3 },
      { kind: 'completed', pages_printed: 3, pages_total: 3 },
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', pages_printed: 3, pages_total: 3, msg: 'job completed' }),
    );
  });

  it('sends one Cancel-Job for a job the user cancelled, however many polls it takes to end', async () => {
    printer.answers.push(processing(), processing(), { state: 'cancelled', reasons: [] });
    const control = { ...quietControl(), cancelled: () => true };
    const ended = await step.run(submitted('j'), printer, control, log);
    expect(printer.cancelled).toEqual(['41']);
    expect(ended.state).toBe('cancelled');
    expect(events).toEqual([{ kind: 'cancelled' }]);
  });

  it('sends no Cancel-Job for a job nobody cancelled', async () => {
    printer.answers.push(processing(), { state: 'completed', reasons: [] });
    await step.run(submitted('j'), printer, quietControl(), log);
    expect(printer.cancelled).toEqual([]);
  });

  it('polls again after an answer the printer could not give, logged at debug', async () => {
    printer.answers.push(new RetryableError('printer_unreachable', 'Get-Job-Attributes: ECONNRESET'), {
      state: 'completed',
      reasons: [],
    });
    const ended = await step.run(submitted('j'), printer, quietControl(), log);
    expect(ended.state).toBe('completed');
    expect(printer.polls).toBe(2);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        error: 'Get-Job-Attributes: ECONNRESET',
        msg: 'job state unavailable; polling again',
      }),
    );
  });

  it('stops at an error that polling again cannot fix', async () => {
    printer.answers.push(new PermanentError('printer_gone', 'the printer forgot job 41'));
    await expect(step.run(submitted('j'), printer, quietControl(), log)).rejects.toThrow(
      'the printer forgot job 41',
    );
    expect(printer.polls).toBe(1);
  });

  it('fails a job the printer aborted, naming its reasons, or saying it gave none', async () => {
    printer.answers.push({ state: 'aborted', reasons: ['document-format-error', 'job-aborted-by-system'] });
    const first = await step.run(submitted('a'), printer, quietControl(), log);
    expect(first).toMatchObject({
      state: 'failed',
      lastError: 'printer aborted the job (document-format-error, job-aborted-by-system)',
    });
    printer.answers.splice(0, printer.answers.length, { state: 'aborted', reasons: [] });
    const second = await step.run(submitted('b'), printer, quietControl(), log);
    expect(second).toMatchObject({ state: 'failed', lastError: 'printer aborted the job (no reason given)' });
    expect(events.map((e) => e.kind)).toEqual(['failed', 'failed']);
  });

  it('polls at once, then after 5, 10, 20 ms... up to status_poll_ms', async () => {
    deps.jobs = { ...deps.jobs, status_poll_ms: 15 };
    printer.answers.push(processing());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stopper = new AbortController();
    const control = { ...quietControl(), stop: stopper.signal };
    const watching = step.run(submitted('j'), printer, control, log).catch((e: unknown) => e);
    const pollsAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return printer.polls;
    };
    // Polls at 0, 5, 15, 30, 45 ms.
    expect(await pollsAt(0)).toBe(1);
    expect(await pollsAt(4)).toBe(1);
    expect(await pollsAt(1)).toBe(2);
    expect(await pollsAt(9)).toBe(2);
    expect(await pollsAt(1)).toBe(3);
    expect(await pollsAt(14)).toBe(3);
    expect(await pollsAt(1)).toBe(4);
    expect(await pollsAt(14)).toBe(4);
    expect(await pollsAt(1)).toBe(5);
    stopper.abort();
    await watching;
  });
});
