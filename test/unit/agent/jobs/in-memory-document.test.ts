/**
 * Small documents with no spool file (docs/agent-jobs.md, "Downloading"): sent from memory, fetched
 * again from the cloud when a restart lost them, a document the cloud no longer has failing the
 * job, a spool file only when there is no room in memory or the backend needs one.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { HttpError } from '../../../../src/client/http-base.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import type { JobLedger } from '../../../../src/store/job-ledger.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';
import { quietControl } from '../../../support/job-control.js';

const DOCUMENT = Buffer.from('%PDF-1.4 one page');

/** What each submission carried: the bytes given, and the spool file's bytes if one existed then. */
const carried = (printer: RecordingPrinter) =>
  printer.submissions.map(({ bytes, file }) => ({ bytes, file }));

describe('small documents with no spool file', () => {
  let rig: JobStepRig;
  let dir: string;
  let ledger: JobLedger;
  let downloads: number;
  const offer = (id: string) => jobOffer(id, { size: DOCUMENT.length });

  /** A runner whose download answers with `answer` (the document in memory by default). */
  const runnerWith = (answer: () => Promise<unknown>, extra: Partial<JobRunnerDeps> = {}) =>
    new JobRunner(
      rig.deps({
        download: async () => {
          downloads++;
          return answer();
        },
        ...extra,
      }),
    );
  const inMemory = async () => Buffer.from(DOCUMENT);

  beforeEach(() => {
    rig = new JobStepRig({ clock: systemClock });
    ({ spoolDir: dir, ledger } = rig);
    downloads = 0;
  });
  afterEach(() => rig.close());

  /** Downloads j1 with a first runner, which then dies with the job `spooled` (its memory lost). */
  const spooledByAnEarlierLife = async () => {
    ledger.add(offer('j1'));
    const first = await runnerWith(inMemory).prepare('j1', quietControl());
    expect(first).toMatchObject({ state: 'spooled', spoolPath: undefined });
  };

  it('sends the document from memory and never writes a spool file', async () => {
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    ledger.add(offer('j1'));
    await runnerWith(inMemory).run('j1', printer, quietControl());
    expect(ledger.get('j1')).toMatchObject({ state: 'completed', spoolPath: undefined });
    expect(carried(printer)).toEqual([{ bytes: DOCUMENT, file: undefined }]);
    expect(readdirSync(dir)).toEqual([]);
    expect(downloads).toBe(1);
  });

  it('after a restart lost the document from memory, fetches it again and sends it once', async () => {
    await spooledByAnEarlierLife();
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    await runnerWith(inMemory).run('j1', printer, quietControl());
    expect(downloads).toBe(2);
    expect(carried(printer)).toEqual([{ bytes: DOCUMENT, file: undefined }]);
    expect(ledger.get('j1')?.state).toBe('completed');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails the job with the reason when the cloud no longer has the document', async () => {
    await spooledByAnEarlierLife();
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    const gone = async () => {
      throw new HttpError(410, 'GET /d/j1: 410 the document was deleted');
    };
    await runnerWith(gone).run('j1', printer, quietControl());
    const message = 'the cloud no longer has the document: GET /d/j1: 410 the document was deleted';
    expect(ledger.get('j1')).toMatchObject({ state: 'failed', lastError: message });
    expect(rig.outbox.pendingFor('j1').at(-1)?.event).toMatchObject({
      kind: 'failed',
      error_code: 3011,
      message,
    });
    expect(carried(printer)).toEqual([]);
  });

  it('a document served again with other bytes is tried again, then fails after download_attempts', async () => {
    await spooledByAnEarlierLife();
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    const altered = async () => {
      throw new RetryableError('checksum_mismatch', 'job j1: document sha256 0a != 0b');
    };
    await runnerWith(altered).run('j1', printer, quietControl());
    expect(downloads).toBe(1 + rig.jobs.download_attempts);
    expect(ledger.get('j1')).toMatchObject({
      state: 'failed',
      lastError: 'could not fetch the document again after 3 attempts: job j1: document sha256 0a != 0b',
    });
    expect(carried(printer)).toEqual([]);
  });

  it('waits out an unreachable cloud without counting it, then sends the document fetched again', async () => {
    await spooledByAnEarlierLife();
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    let refused = 5;
    const flaky = async () => {
      if (refused-- > 0) throw new RetryableError('network', 'GET /d/j1: ECONNREFUSED');
      return Buffer.from(DOCUMENT);
    };
    await runnerWith(flaky).run('j1', printer, quietControl());
    expect(downloads).toBe(1 + 6);
    expect(ledger.get('j1')?.state).toBe('completed');
    expect(carried(printer)).toEqual([{ bytes: DOCUMENT, file: undefined }]);
  });

  it('writes the spool file for a backend that needs a file, before the submission', async () => {
    const printer = new RecordingPrinter({ sendsDocumentBytes: false });
    ledger.add(offer('j1'));
    await runnerWith(inMemory).run('j1', printer, quietControl());
    expect(carried(printer)[0]?.file).toEqual(DOCUMENT);
    expect(ledger.get('j1')).toMatchObject({ state: 'completed', spoolPath: join(dir, 'j1.pdf') });
    // Removed once the job ended.
    expect(readdirSync(dir)).toEqual([]);
    expect(downloads).toBe(1);
  });

  it('writes the spool file when memory holds no more documents, and sends from it', async () => {
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    ledger.add(offer('j1'));
    const runner = runnerWith(inMemory, { heldDocumentsBytes: DOCUMENT.length - 1 });
    const spooled = await runner.prepare('j1', quietControl());
    expect(spooled).toMatchObject({ state: 'spooled', spoolPath: join(dir, 'j1.pdf') });
    expect(readFileSync(join(dir, 'j1.pdf'))).toEqual(DOCUMENT);
    await runner.run('j1', printer, quietControl());
    expect(carried(printer)).toEqual([{ bytes: undefined, file: DOCUMENT }]);
  });

  it('a spooled document whose file went missing is fetched again instead of failing the job', async () => {
    ledger.add(offer('j1'));
    const onDisk = async (_offer: unknown, target: string) => writeFileSync(target, DOCUMENT);
    const runner = new JobRunner(
      rig.deps({
        download: async (o, target) => {
          downloads++;
          return downloads === 1 ? onDisk(o, target) : Buffer.from(DOCUMENT);
        },
      }),
    );
    const spooled = await runner.prepare('j1', quietControl());
    rmSync(spooled.spoolPath as string);
    const printer = new RecordingPrinter({ sendsDocumentBytes: true });
    await runner.run('j1', printer, quietControl());
    expect(downloads).toBe(2);
    expect(carried(printer)).toEqual([{ bytes: DOCUMENT, file: undefined }]);
    expect(ledger.get('j1')?.state).toBe('completed');
  });
});
