import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobOffer } from '../../../support/job-offers.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimRefusedError } from '../../../../src/agent/jobs/claiming-download.js';
import { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import {
  busyDelay,
  JobRunner,
  printerJobName,
  refusedBeforePrinting,
} from '../../../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { UNTRUSTED_HINT, untrustedCertificateError } from '../../../../src/client/cloud-trust.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { PermanentError, RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BackendJob, BackendJobState, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import type { JobOffer } from '../../../../src/protocol/connector-channel.js';
import type { AgentDatabase } from '../../../../src/store/agent-db.js';
import type { JobLedger } from '../../../../src/store/job-ledger.js';
import type { Outbox } from '../../../../src/store/outbox.js';
import { quietControl } from '../../../support/job-control.js';
import { JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';

/** A printer fake (the hardware boundary): busy for the next `busyFor` tries, or refusing the format. */
class FakePrinter extends RecordingPrinter {
  busyFor = 0;
  reject = false;
  constructor() {
    super({
      reportsDocumentSent: false,
      endState: { state: 'completed', reasons: [], pagesCompleted: 2, pagesTotal: 2 },
    });
  }
  /** Behave like an IPP backend: report when the whole document went out. */
  reportDocumentSent(): void {
    this.reportsDocumentSent = true;
  }
  override async submit(job: BackendJob): Promise<SubmittedJob> {
    if (this.reject) throw new PermanentError('document_format_not_supported', 'format not supported');
    if (this.busyFor > 0) {
      this.busyFor--;
      throw new RetryableError('printer_busy', 'server-error-busy');
    }
    return super.submit(job);
  }
  /** Sets the state of printer job `id`. */
  setState(id: string, state: BackendJobState): void {
    const job = this.jobs.get(id);
    if (job) job.state = state;
  }
}

function offer(id: string): JobOffer {
  return jobOffer(id, { url: '/d' });
}

describe('JobRunner and JobLoop', () => {
  let rig: JobStepRig;
  let dir: string;
  let db: AgentDatabase;
  let ledger: JobLedger;
  let outbox: Outbox;
  let printer: FakePrinter;
  let runner: JobRunner;
  const kinds = (jobId: string) => rig.kinds(jobId);

  beforeEach(() => {
    rig = new JobStepRig({
      logLevel: 'silent',
      clock: systemClock,
      jobs: { retry_initial_ms: 10, retry_max_ms: 40, download_attempts: 5, status_poll_ms: 50 },
    });
    ({ spoolDir: dir, db, ledger, outbox } = rig);
    printer = new FakePrinter();
    runner = new JobRunner(rig.deps({ download: async (_offer, target) => writeFileSync(target, '%PDF-') }));
  });
  afterEach(() => rig.close());

  /** A job loop over a runner whose download is `download`, printing to the fake printer. */
  const loopWithDownload = (download: JobRunnerDeps['download']) =>
    new JobLoop({
      ledger,
      runner: new JobRunner(rig.deps({ download })),
      emit: (jobId, event) => outbox.add(jobId, event),
      backendFor: () => printer,
      spoolDir: dir,
      logger: silentLogger(),
    });
  /** Waits (up to 4 s) until every job of `ids` is completed or failed. */
  const untilEnded = async (ids: string[]) => {
    const ended = () => ids.every((id) => ['completed', 'failed'].includes(ledger.get(id)?.state ?? ''));
    for (let i = 0; i < 200 && !ended(); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('retries a busy printer, then prints once, reports events and removes the spool file', async () => {
    printer.busyFor = 2;
    ledger.add(offer('j1'));
    await runner.run('j1', printer, quietControl());
    const job = ledger.get('j1');
    expect(job).toMatchObject({ state: 'completed', attempts: 3, printerJobId: '1' });
    expect(printer.submitted.map((j) => j.jobName)).toEqual([printerJobName('j1')]);
    expect(kinds('j1')).toEqual(['downloading', 'printing', 'completed']);
    expect(outbox.pendingFor('j1')[2]?.event).toMatchObject({ pages_printed: 2, pages_total: 2 });
    expect(existsSync(job?.spoolPath as string)).toBe(false);
  });

  it('fails a rejected document with a clear message and code 3011', async () => {
    printer.reject = true;
    ledger.add(offer('j2'));
    await runner.run('j2', printer, quietControl());
    expect(ledger.get('j2')).toMatchObject({ state: 'failed', lastError: 'format not supported' });
    expect(outbox.pendingFor('j2').at(-1)?.event).toMatchObject({ kind: 'failed', error_code: 3011 });
  });

  it('after a crash in submitting, finds the job at the printer and does not print it again', async () => {
    ledger.add(offer('j3'));
    await runner.run('j3', printer, quietControl());
    // simulate: the ledger lost the "submitted" record (crash right after Print-Job)
    db.prepare("UPDATE jobs SET state = 'submitting', printer_job_id = NULL WHERE job_id = 'j3'").run();
    await runner.run('j3', printer, quietControl());
    expect(printer.submitted).toHaveLength(1);
    expect(ledger.get('j3')).toMatchObject({ state: 'completed', printerJobId: '1' });
  });

  it('after a crash in submitting before Print-Job reached the printer, submits once', async () => {
    ledger.add(offer('j4'));
    ledger.move('j4', 'downloading');
    writeFileSync(join(dir, 'j4.pdf'), '%PDF-');
    ledger.move('j4', 'spooled', { spoolPath: join(dir, 'j4.pdf') });
    ledger.move('j4', 'submitting', { attempt: true });
    await runner.run('j4', printer, quietControl());
    expect(printer.submitted).toHaveLength(1);
    expect(ledger.get('j4')?.state).toBe('completed');
  });

  it('records when the printer has the whole document; a new attempt starts unsent', async () => {
    printer.reportDocumentSent();
    ledger.add(offer('j5'));
    await runner.run('j5', printer, quietControl());
    expect(ledger.get('j5')).toMatchObject({ state: 'completed', documentSent: true });
    ledger.add(offer('j6'));
    ledger.move('j6', 'downloading');
    ledger.move('j6', 'spooled', { spoolPath: join(dir, 'j6.pdf') });
    expect(ledger.move('j6', 'submitting', { attempt: true }).documentSent).toBe(false);
    ledger.markDocumentSent('j6');
    expect(ledger.get('j6')?.documentSent).toBe(true);
  });

  it('after a crash with the whole document sent, watches the job the printer found instead of resending', async () => {
    printer.reportDocumentSent();
    ledger.add(offer('j7'));
    await runner.run('j7', printer, quietControl());
    db.prepare("UPDATE jobs SET state = 'submitting', printer_job_id = NULL WHERE job_id = 'j7'").run();
    await runner.run('j7', printer, quietControl());
    expect(printer.submitted).toHaveLength(1);
    expect(printer.cancelled).toEqual([]);
    expect(ledger.get('j7')).toMatchObject({ state: 'completed', printerJobId: '1' });
  });

  it('after a crash with every byte flushed but no answer seen, watches the printer job and never sends it twice', async () => {
    printer.reportDocumentSent();
    ledger.add(offer('j8'));
    await runner.run('j8', printer, quietControl());
    // The crash window: the printer has a job of that name and every byte of the document was with
    // the operating system, but the printer's answer was never seen (document_flushed stays 1).
    db.prepare(
      "UPDATE jobs SET state = 'submitting', printer_job_id = NULL, document_sent = 0 WHERE job_id = 'j8'",
    ).run();
    await runner.run('j8', printer, quietControl());
    expect(printer.cancelled).toEqual([]);
    expect(printer.submitted.map((j) => j.jobName)).toEqual([printerJobName('j8')]);
    expect(ledger.get('j8')).toMatchObject({ state: 'completed', printerJobId: '1' });
  });

  const loopFor = () =>
    new JobLoop({
      ledger,
      runner,
      emit: (jobId, event) => outbox.add(jobId, event),
      backendFor: (id) => (id === 'p1' ? printer : undefined),
      spoolDir: dir,
      logger: silentLogger(),
    });

  const settle = async (loop: JobLoop) => {
    for (let i = 0; i < 200 && loop.backlog() > 0; i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('drops a job whose claim the cloud refuses, with its events, and ignores a repeated offer', async () => {
    const downloads: string[] = [];
    runner = new JobRunner(
      rig.deps({
        download: async (o, target) => {
          downloads.push(o.job_id);
          if (o.job_id === 'taken')
            throw new ClaimRefusedError(o.job_id, 'job taken is held by another connector');
          writeFileSync(target, '%PDF-');
        },
        discardEvents: (jobId) => outbox.discardJob(jobId),
      }),
    );
    const loop = loopFor();
    loop.start();
    expect(loop.offer(offer('taken'))).toBe(true);
    expect(loop.offer(offer('ok'))).toBe(true);
    expect(loop.offer(offer('ok'))).toBe(false);
    await settle(loop);
    await loop.stop();
    expect(ledger.get('taken')).toMatchObject({
      state: 'cancelled',
      lastError: "job taken is not this connector's to print: job taken is held by another connector",
    });
    expect(kinds('taken')).toEqual([]);
    expect(downloads).toEqual(['taken', 'ok']);
    expect(printer.submitted.map((j) => j.jobName)).toEqual([printerJobName('ok')]);
    expect(kinds('ok')).toEqual(['received', 'downloading', 'printing', 'completed']);
  });

  it('an offer the ledger cannot record is refused without throwing, and taken when offered again', async () => {
    const loop = loopFor();
    loop.start();
    const add = ledger.add.bind(ledger);
    ledger.add = () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    expect(loop.offer(offer('full'))).toBe(false);
    expect(kinds('full')).toEqual([]);
    ledger.add = add;
    expect(loop.offer(offer('full'))).toBe(true);
    await settle(loop);
    await loop.stop();
    expect(ledger.get('full')?.state).toBe('completed');
  });

  it('a cancel while waiting to retry a busy printer ends the job without printing', async () => {
    printer.busyFor = 1000;
    const slowRunner = new JobRunner(
      rig.deps({
        download: async (_offer, target) => writeFileSync(target, '%PDF-'),
        jobs: { ...rig.jobs, retry_initial_ms: 60_000, retry_max_ms: 60_000 },
      }),
    );
    runner = slowRunner;
    const loop = loopFor();
    loop.start();
    loop.offer(offer('c1'));
    for (let i = 0; i < 200 && ledger.get('c1')?.attempts === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    loop.cancel('c1');
    await settle(loop);
    await loop.stop();
    expect(ledger.get('c1')?.state).toBe('cancelled');
    expect(printer.submitted).toHaveLength(0);
    expect(kinds('c1').at(-1)).toBe('cancelled');
  });

  it('a cancel after submission cancels the job at the printer', async () => {
    const loop = loopFor();
    const original = printer.submit.bind(printer);
    printer.submit = async (job) => {
      const result = await original(job);
      printer.setState(result.printerJobId, { state: 'processing', reasons: [] });
      loop.cancel('c2');
      return result;
    };
    loop.start();
    loop.offer(offer('c2'));
    await settle(loop);
    await loop.stop();
    expect(printer.cancelled).toEqual(['1']);
    expect(ledger.get('c2')?.state).toBe('cancelled');
  });

  it('runs one job at a time per printer and every queued job completes', async () => {
    const loop = new JobLoop({
      ledger,
      runner,
      emit: (jobId, event) => outbox.add(jobId, event),
      backendFor: () => printer,
      spoolDir: dir,
      logger: silentLogger(),
    });
    loop.start();
    for (const id of ['q1', 'q2', 'q3']) loop.offer(offer(id));
    for (let i = 0; i < 100 && loop.backlog() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    await loop.stop();
    expect(['q1', 'q2', 'q3'].map((id) => ledger.get(id)?.state)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(printer.submitted.map((j) => j.jobName)).toEqual(['q1', 'q2', 'q3'].map(printerJobName));
  });
  it('a download that failed while the line was busy longer than its retry delay is tried again, not dropped', async () => {
    // d1's Print-Job takes 150 ms; d2's first download fails (cloud away) and is due again after
    // at most 40 ms, long before the line reaches it.
    const original = printer.submit.bind(printer);
    printer.submit = async (job) => {
      if (job.jobName === printerJobName('d1')) await new Promise((r) => setTimeout(r, 150));
      return original(job);
    };
    let failures = 1;
    const loop = loopWithDownload(async (o, target) => {
      if (o.job_id === 'd2' && failures-- > 0)
        throw new RetryableError('network', 'GET /d: other side closed');
      writeFileSync(target, '%PDF-');
    });
    loop.start();
    await loop.offer(offer('d1'));
    await loop.offer(offer('d2'));
    // (backlog() does not count a job waiting out of line, so the ledger says when both ended)
    await untilEnded(['d1', 'd2']);
    await loop.stop();
    expect(['d1', 'd2'].map((id) => ledger.get(id)?.state)).toEqual(['completed', 'completed']);
    // The failed download did not count as an attempt (the cloud, not the document, was at fault).
    expect(ledger.get('d2')?.attempts).toBe(1);
  });
  it('a cloud certificate that stops verifying makes the download wait, not the job fail', async () => {
    const selfSigned = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    const untrusted = untrustedCertificateError('GET https://cloud.test/d', selfSigned);
    let failures = 2;
    const messages: string[] = [];
    const loop = loopWithDownload(async (_o, target) => {
      if (failures-- > 0) {
        messages.push(ledger.get('t1')?.lastError ?? '');
        throw untrusted;
      }
      writeFileSync(target, '%PDF-');
    });
    loop.start();
    await loop.offer(offer('t1'));
    await untilEnded(['t1']);
    await loop.stop();
    expect(ledger.get('t1')).toMatchObject({ state: 'completed', attempts: 1 });
    // The second try saw the first one's reason recorded: the URL, the TLS code and the fix.
    expect(messages).toEqual(['', untrusted?.message]);
    expect(untrusted?.message).toBe(
      `GET https://cloud.test/d: the server's TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate); ${UNTRUSTED_HINT}`,
    );
    expect(kinds('t1')).toEqual(['received', 'downloading', 'printing', 'completed']);
  });
});

describe('refusedBeforePrinting and busyDelay', () => {
  const refused = (code: string, cause?: string) =>
    new RetryableError(
      code,
      'x',
      cause ? { cause: Object.assign(new Error(cause), { code: cause }) } : undefined,
    );
  it.each([
    ['printer_busy', undefined, true],
    ['printer_error', undefined, true],
    ['printer_unreachable', 'ECONNREFUSED', true],
    ['printer_unreachable', 'EHOSTUNREACH', true],
    ['printer_unreachable', 'ECONNRESET', false],
    ['printer_unreachable', 'ETIMEDOUT', false],
    ['printer_unreachable', undefined, false],
    ['printer_bad_response', undefined, false],
  ])('%s (%s) -> certainly not printed: %s', (code, cause, expected) => {
    expect(refusedBeforePrinting(refused(code, cause))).toBe(expected);
  });
  it('starts busy retries at 2 ms, doubles them and caps them', () => {
    expect([0, 1, 2, 5].map((n) => busyDelay(n, 1000))).toEqual([2, 4, 8, 64]);
    expect(busyDelay(15, 1000)).toBe(1000);
  });
});
