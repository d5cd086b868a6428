/**
 * A resumed job whose document cannot be fetched again does not hold its printer's line
 * (docs/agent-jobs.md, "Downloading" and "One pipeline per printer"). After a restart a `spooled`
 * job's small document is gone from memory; while the cloud cannot serve it (unreachable, 5xx),
 * the job waits out of line with backoff and the printer's later jobs print; when the document
 * comes back the job prints once; a document the cloud no longer has (410) fails the job with
 * its reason, never printed. Real JobLoop, JobRunner, ledger and outbox on SQLite; the cloud's
 * document endpoint is a function that fails on demand; the printer records what it got.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentControl } from '../../../../src/agent/control/agent-control.js';
import type { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner, printerJobName } from '../../../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { HttpError } from '../../../../src/client/http-base.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { formatStatus } from '../../../../src/cli/status-report.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter, eachTurnUntil } from '../../../support/job-step-rig.js';
import { quietControl } from '../../../support/job-control.js';

const DOCUMENT = Buffer.from('%PDF-1.4 one page');

/** The cloud's document endpoint: serves every job's document, or fails for one job as told. */
class DocumentEndpoint {
  /** Fetches asked per job. */
  readonly asked = new Map<string, number>();
  /** What the endpoint answers for a job instead of its document. */
  readonly failing = new Map<string, () => Error>();
  /** Jobs whose fetch hangs (the cloud takes the request and does not answer) until released. */
  readonly hanging = new Map<string, Promise<void>>();

  readonly download = async (
    offer: { job_id: string },
    _target: string,
    signal: AbortSignal,
  ): Promise<Buffer> => {
    this.asked.set(offer.job_id, (this.asked.get(offer.job_id) ?? 0) + 1);
    const hang = this.hanging.get(offer.job_id);
    if (hang) await Promise.race([hang, aborted(signal)]);
    const failure = this.failing.get(offer.job_id);
    if (failure) throw failure();
    return Buffer.from(DOCUMENT);
  };

  times(jobId: string): number {
    return this.asked.get(jobId) ?? 0;
  }
}

/** A printer whose first answer waits until the test lets it go; then it takes every job. */
class GatedPrinter extends RecordingPrinter {
  answer: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => {
    this.answer = resolve;
  });

  override async submit(job: BackendJob): Promise<SubmittedJob> {
    await this.gate;
    return super.submit(job);
  }
}

/** Rejects once `signal` aborts (the agent stopping, or the job cancelled). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

describe('a resumed job whose document cannot be fetched', () => {
  let rig: JobStepRig;
  let cloud: DocumentEndpoint;
  let printer: RecordingPrinter;
  let loop: JobLoop | undefined;

  const offer = (id: string) => jobOffer(id, { size: DOCUMENT.length });
  const runner = () => new JobRunner(rig.deps({ download: cloud.download, random: () => 1 }));
  const state = (id: string) => rig.ledger.get(id)?.state;
  const printed = (id: string) =>
    printer.submitted.filter((job) => job.jobName === `printrelay-${id}`).length;
  const until = eachTurnUntil;

  /** Job A was downloaded into memory by an earlier life of the agent, which then died. */
  const spooledByAnEarlierLife = async () => {
    rig.ledger.add(offer('A'));
    expect(await runner().prepare('A', quietControl())).toMatchObject({ state: 'spooled' });
    cloud.asked.clear();
  };
  /** The restarted agent's loop, resuming A (with `jobs`, default a runner of the rig's settings). */
  const restart = (jobs = runner()) => {
    loop = rig.loop(jobs, (id) => (id === 'p1' ? printer : undefined));
    loop.start();
    return loop;
  };

  beforeEach(() => {
    rig = new JobStepRig({ clock: new ManualClock(), jobs: { download_attempts: 50 } });
    cloud = new DocumentEndpoint();
    printer = new RecordingPrinter();
    loop = undefined;
  });
  afterEach(async () => {
    await loop?.stop();
    rig.close();
  });

  it('lets a later job print while it waits, retries with backoff, and prints once when the document is back', async () => {
    await spooledByAnEarlierLife();
    cloud.failing.set('A', () => new RetryableError('network', 'GET /d/A: ECONNREFUSED'));
    const agent = restart();
    await until(() => cloud.times('A') >= 1);
    agent.offer(offer('B'));

    // B prints while A's document still cannot be fetched (on a line A held, B would wait for ever).
    await until(() => state('B') === 'completed' || cloud.times('A') >= 8);
    expect(state('B')).toBe('completed');
    expect(printed('A')).toBe(0);
    expect(state('A')).toBe('spooled');

    // A keeps trying, each wait longer than the one before up to jobs.retry_max_ms.
    await until(() => cloud.times('A') >= 4);
    const waits = rig
      .logged('fetching the document again failed; will try again')
      .filter((line) => line['job'] === 'A')
      .map((line) => line['delayMs']);
    expect(waits.slice(0, 3)).toEqual([10, 20, 20]);

    // The cloud serves A again: it prints once, after B.
    cloud.failing.delete('A');
    await until(() => state('A') === 'completed');
    expect(printer.submitted.map((job) => job.jobName)).toEqual(['printrelay-B', 'printrelay-A']);
    expect(rig.kinds('A').filter((kind) => kind === 'completed' || kind === 'failed')).toEqual(['completed']);
  });

  it('tries its fetch once per wait: at its turn in the line it leaves without trying again', async () => {
    await spooledByAnEarlierLife();
    cloud.failing.set('A', () => new RetryableError('network', 'GET /d/A: ECONNREFUSED'));
    // Waits of a minute: no later try comes from a timer while the test looks.
    const jobs = { ...rig.jobs, retry_initial_ms: 60_000, retry_max_ms: 60_000 };
    const agent = restart(new JobRunner(rig.deps({ download: cloud.download, random: () => 1, jobs })));
    // Its try ahead of its turn failed, and its turn came: out of the line (the backlog no longer counts it).
    await until(() => agent.documentWaitReason('A') !== undefined && agent.backlog() === 0);
    expect(cloud.times('A')).toBe(1);
    expect(state('A')).toBe('spooled');
  });

  it('a job whose spool file is gone at its turn fetches it again there, and leaves the line while that fails', async () => {
    const gated = new GatedPrinter({ sendsDocumentBytes: false });
    // The document goes to its spool file, as a download larger than memory keeps does.
    const toSpool: JobRunnerDeps['download'] = async (job, target, signal) =>
      writeFileSync(target, await cloud.download(job, target, signal));
    loop = rig.loop(new JobRunner(rig.deps({ download: toSpool, random: () => 1 })), () => gated);
    const agent = loop;
    agent.start();
    agent.offer(offer('X'));
    agent.offer(offer('Y'));
    // X is at the printer (which has not answered yet); Y's document came ahead of its turn.
    await until(() => state('X') === 'submitting' && state('Y') === 'spooled' && cloud.times('Y') === 1);
    rmSync(rig.ledger.get('Y')?.spoolPath ?? '');
    cloud.failing.set('Y', () => new RetryableError('network', 'GET /d/Y: ECONNREFUSED'));
    gated.answer();
    await until(() => state('X') === 'completed' && agent.documentWaitReason('Y') !== undefined);
    agent.offer(offer('Z'));
    await until(() => state('Z') === 'completed');
    // Y still waits out of line, tried again beside it; the backlog counts neither Y nor the ended jobs.
    const tries = cloud.times('Y');
    await until(() => cloud.times('Y') > tries);
    expect(state('Y')).toBe('spooled');
    expect(agent.backlog()).toBe(0);

    cloud.failing.delete('Y');
    await until(() => state('Y') === 'completed');
    expect(gated.submitted.map((job) => job.jobName)).toEqual(['X', 'Z', 'Y'].map(printerJobName));
  });

  it('keeps the line moving through 5xx answers and fails the job, never printed, when the document is gone', async () => {
    await spooledByAnEarlierLife();
    cloud.failing.set('A', () => new RetryableError('http_503', 'GET /d/A: 503 unavailable'));
    const agent = restart();
    await until(() => cloud.times('A') >= 1);
    agent.offer(offer('B'));
    await until(() => state('B') === 'completed' || state('A') !== 'spooled');
    expect(state('B')).toBe('completed');
    expect(state('A')).toBe('spooled');

    cloud.failing.set('A', () => new HttpError(410, 'GET /d/A: 410 the document was deleted'));
    await until(() => state('A') === 'failed');
    const reason = 'the cloud no longer has the document: GET /d/A: 410 the document was deleted';
    expect(rig.ledger.get('A')?.lastError).toBe(reason);
    expect(rig.outbox.pendingFor('A').at(-1)?.event).toMatchObject({
      kind: 'failed',
      error_code: 3011,
      message: reason,
    });
    expect(printed('A')).toBe(0);
    expect(printed('B')).toBe(1);
  });

  it('a cancel ends the job waiting for its document, never printed', async () => {
    await spooledByAnEarlierLife();
    cloud.failing.set('A', () => new RetryableError('network', 'GET /d/A: ECONNREFUSED'));
    const agent = restart();
    await until(() => cloud.times('A') >= 2);
    agent.cancel('A');
    await until(() => state('A') === 'cancelled');
    expect(rig.kinds('A').at(-1)).toBe('cancelled');
    const asked = cloud.times('A');
    agent.offer(offer('B'));
    await until(() => state('B') === 'completed');
    expect(cloud.times('A')).toBe(asked);
    expect(printed('A')).toBe(0);
  });

  it('is listed by status as waiting for its document, with why the last try failed', async () => {
    await spooledByAnEarlierLife();
    cloud.failing.set('A', () => new RetryableError('network', 'GET /d/A: ECONNREFUSED'));
    const agent = restart();
    const control = new AgentControl(
      {
        config: { enabled: false, bind: '127.0.0.1', port: 0 },
        cloudUrl: 'https://cloud.example',
        dataDir: rig.spoolDir,
        channel: 'websocket',
        version: '0.0.0',
        clock: rig.clock,
        logger: rig.log,
        scrub: (text) => text,
      },
      {
        connectorId: () => 'c-1',
        channelConnected: () => true,
        printers: () => [],
        unfinishedJobs: () => rig.ledger.unfinished(),
        documentWaitReason: (jobId) => agent.documentWaitReason(jobId),
        jobsWaitingForDocument: () => agent.jobsWaitingForDocument(),
        outbox: () => ({ depth: 0, oldestCreatedAt: undefined }),
        stations: () => [],
        tokenExpiresAt: () => undefined,
        instance: () => undefined,
      },
    );
    try {
      await until(() => cloud.times('A') >= 2);
      const listed = control.status().jobs.list;
      expect(listed).toEqual([
        expect.objectContaining({
          id: 'A',
          state: 'spooled',
          waitingFor: 'document',
          lastError: 'GET /d/A: ECONNREFUSED',
        }),
      ]);
      const line = formatStatus(control.status(), 'u').find((text) => text.includes('  A  '));
      expect(line).toMatch(
        /^ {2}A {2}p1 {2}spooled \(waiting for its document, \d+ failed tr(y|ies), next in \d+ s\) .*GET \/d\/A: ECONNREFUSED$/,
      );
      // The count is the ledger row's (a restart keeps it).
      const tries = control.status().jobs.list[0]?.documentTries ?? 0;
      expect(tries).toBeGreaterThanOrEqual(2);
      expect(tries).toBeLessThanOrEqual(rig.ledger.get('A')?.refetchTries ?? 0);

      const waiting = async () =>
        (await control.metrics.render())
          .split('\n')
          .find((text) => text.startsWith('printrelay_jobs_waiting_for_document '));
      expect(await waiting()).toBe('printrelay_jobs_waiting_for_document 1');

      // Once fetched, it is a job like any other.
      cloud.failing.delete('A');
      await until(() => state('A') === 'completed');
      expect(agent.documentWaitReason('A')).toBeUndefined();
      expect(await waiting()).toBe('printrelay_jobs_waiting_for_document 0');
    } finally {
      await control.stop();
    }
  });

  it('a later job does not wait for the next try of its fetch either, however long that try takes', async () => {
    await spooledByAnEarlierLife();
    cloud.failing.set('A', () => new RetryableError('network', 'GET /d/A: ECONNREFUSED'));
    let answer = () => {};
    cloud.hanging.set('A', new Promise<void>((resolve) => (answer = resolve)));
    const agent = restart();
    // Its first try hangs too: that one holds the line, as any job's download ahead of its turn does.
    await until(() => cloud.times('A') === 1);
    answer();
    await until(() => cloud.times('A') === 2);
    // The second try hangs (a cloud that takes the connection and never answers, until a timeout).
    cloud.hanging.set('A', new Promise<void>((resolve) => (answer = resolve)));
    await until(() => cloud.times('A') === 3);
    agent.offer(offer('B'));
    await until(() => state('B') === 'completed');
    expect(printed('A')).toBe(0);
    cloud.failing.delete('A');
    answer();
    await until(() => state('A') === 'completed');
    expect(printer.submitted.map((job) => job.jobName)).toEqual(['printrelay-B', 'printrelay-A']);
  });
});
