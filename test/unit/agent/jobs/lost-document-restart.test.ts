/**
 * A resumed job waiting for its document keeps its wait across a restart (docs/agent-jobs.md,
 * "Downloading"): the failed tries, the counted ones, the next try and the last error are in the
 * job's ledger row, so a restarted agent (a new JobRunner and JobLoop on the same ledger) neither
 * fetches at once nor starts the backoff or the count over. The ManualClock says when a try is
 * due; the loop's timers are faked (setTimeout only), so the test moves time and sees exactly when
 * the restarted loop asks the cloud again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { jobOffer } from '../../../support/job-offers.js';
import { quietControl } from '../../../support/job-control.js';
import { eachTurnUntil, JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';

const DOCUMENT = Buffer.from('%PDF-1.4 one page');

describe('a job waiting for its document, restarted', () => {
  let rig: JobStepRig;
  let clock: ManualClock;
  let printer: RecordingPrinter;
  let loop: JobLoop | undefined;
  /** What the cloud answers the document download; counts the downloads. */
  let answer: () => Buffer;
  let asked: number;

  // Backoff 1 s doubling (no jitter: random 1), up to a minute: waits of 2, 4, 8, 16 s.
  const runner = () =>
    new JobRunner(
      rig.deps({
        download: async () => {
          asked++;
          return answer();
        },
        random: () => 1,
      }),
    );
  const lastWait = () => rig.logged('fetching the document again failed; will try again').at(-1);

  /**
   * Life 1: A's document was fetched into memory, then lost (the process died), and the fetches
   * again failed three times with `error`, each tried when due. Returns A's recorded next try.
   */
  async function firstLifeFailsThrice(error: () => Error): Promise<number> {
    rig.ledger.add(jobOffer('A', { size: DOCUMENT.length }));
    answer = () => Buffer.from(DOCUMENT);
    await runner().prepare('A', quietControl());
    answer = () => {
      throw error();
    };
    const life = runner();
    const waits: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      if (i > 0) clock.advance(waits.at(-1) as number);
      await life.prepare('A', quietControl(), printer, true);
      waits.push(lastWait()?.['delayMs']);
    }
    expect(waits).toEqual([2_000, 4_000, 8_000]);
    // The process dies 7 s into the last wait, 1 s before the next try.
    clock.advance(7_000);
    asked = 0;
    return rig.ledger.get('A')?.nextRetryAt ?? 0;
  }

  beforeEach(() => {
    clock = new ManualClock();
    rig = new JobStepRig({
      clock,
      jobs: { retry_initial_ms: 1_000, retry_max_ms: 60_000, download_attempts: 4 },
    });
    printer = new RecordingPrinter();
    loop = undefined;
    asked = 0;
  });
  afterEach(async () => {
    await loop?.stop();
    vi.useRealTimers();
    rig.close();
  });

  it('resumes at the recorded try: not fetched before its next try, the count going on to the limit', async () => {
    const due = await firstLifeFailsThrice(() => new RetryableError('http_500', 'GET /d/A: 500 broken'));
    expect(rig.ledger.get('A')).toMatchObject({
      state: 'spooled',
      refetchTries: 3,
      refetchFailures: 3,
      lastError: 'GET /d/A: 500 broken',
    });
    expect(due).toBe(clock.now() + 1_000);

    // The restart: a new runner knows the wait from the ledger alone.
    const restarted = runner();
    const job = rig.ledger.get('A');
    if (!job) throw new Error('A is not in the ledger');
    expect(restarted.waitsForDocument(job)).toBe(true);
    expect(restarted.retryDelayMs(job)).toBe(1_000);
    expect(restarted.documentWaitReason('A')).toBe('GET /d/A: 500 broken');
    expect(restarted.documentWaits()).toBe(1);

    // Queued again, it is not fetched before its wait is over.
    expect(await restarted.prepare('A', quietControl(), printer)).toMatchObject({ state: 'spooled' });
    expect(asked).toBe(0);

    // Its fourth failure is the fourth counted one: download_attempts (4) ends it, never printed.
    clock.advance(1_000);
    expect(await restarted.prepare('A', quietControl(), printer, true)).toMatchObject({
      state: 'failed',
      lastError: 'could not fetch the document again after 4 attempts: GET /d/A: 500 broken',
    });
    expect(asked).toBe(1);
    expect(printer.submitted).toEqual([]);
  });

  it('a job run on its own (JobRunner.run) waits out the recorded next try before it fetches', async () => {
    const due = await firstLifeFailsThrice(() => new RetryableError('http_503', 'GET /d/A: 503 busy'));
    answer = () => Buffer.from(DOCUMENT);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const running = runner().run('A', printer, quietControl());
    await eachTurnUntil(() => vi.getTimerCount() > 0);
    await vi.advanceTimersByTimeAsync(due - clock.now() - 1);
    expect(asked).toBe(0);
    clock.advance(due - clock.now());
    await vi.advanceTimersByTimeAsync(1);
    await running;
    expect(asked).toBe(1);
    expect(rig.ledger.get('A')).toMatchObject({ state: 'completed', refetchTries: 0 });
    expect(printer.submitted.map((submitted) => submitted.jobName)).toEqual(['printrelay-A']);
  });

  it('the restarted loop asks the cloud only at the recorded next try, the backoff going on from there', async () => {
    const due = await firstLifeFailsThrice(() => new RetryableError('http_503', 'GET /d/A: 503 busy'));
    // A 503 is not counted, only waited out.
    expect(rig.ledger.get('A')).toMatchObject({ refetchTries: 3, refetchFailures: 0 });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    loop = rig.loop(runner(), (id) => (id === 'p1' ? printer : undefined));
    loop.start();
    // Resumed, the job left its line to wait for its recorded next try.
    await eachTurnUntil(() => vi.getTimerCount() > 0);
    expect(loop.documentWaitReason('A')).toBe('GET /d/A: 503 busy');
    expect(loop.jobsWaitingForDocument()).toBe(1);
    await vi.advanceTimersByTimeAsync(due - clock.now() - 1);
    expect(asked).toBe(0);

    // Due: fetched beside the line; failing again, its wait is the fourth step of the backoff.
    clock.advance(due - clock.now());
    await vi.advanceTimersByTimeAsync(1);
    await eachTurnUntil(() => asked === 1 && vi.getTimerCount() > 0);
    expect(lastWait()).toMatchObject({ delayMs: 16_000, tries: 4 });
    expect(rig.ledger.get('A')).toMatchObject({ refetchTries: 4, nextRetryAt: clock.now() + 16_000 });

    // The cloud serves it again: it prints once, and the wait is gone from its row.
    answer = () => Buffer.from(DOCUMENT);
    clock.advance(16_000);
    await vi.advanceTimersByTimeAsync(16_000);
    await eachTurnUntil(() => rig.ledger.get('A')?.state === 'completed');
    expect(printer.submitted.map((submitted) => submitted.jobName)).toEqual(['printrelay-A']);
    expect(rig.ledger.get('A')).toMatchObject({ refetchTries: 0, refetchFailures: 0 });
    expect(loop.jobsWaitingForDocument()).toBe(0);
  });
});
