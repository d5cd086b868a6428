import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { HeldDocuments, SMALL_DOCUMENT_BYTES } from '../../../../src/agent/jobs/held-documents.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import { openAgentDatabase } from '../../../../src/store/agent-db.js';
import { JobLedger } from '../../../../src/store/job-ledger.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { quietControl } from '../../../support/job-control.js';
import { jobOffer } from '../../../support/job-offers.js';

it('keeps small documents up to its limit in all, and frees what it forgets', () => {
  const held = new HeldDocuments(10);
  expect(held.keep('a', Buffer.alloc(6))).toBe(true);
  expect(held.keep('b', Buffer.alloc(5))).toBe(false);
  expect(held.get('b')).toBeUndefined();
  expect(held.keep('c', Buffer.alloc(4))).toBe(true);
  expect(held.held()).toBe(10);
  held.forget('a');
  expect(held.held()).toBe(4);
  expect(held.keep('b', Buffer.alloc(5))).toBe(true);
  // Kept again (a second download): replaced, not counted twice.
  expect(held.keep('b', Buffer.alloc(6))).toBe(true);
  expect(held.held()).toBe(10);
  held.forget('nothing');
  expect(held.held()).toBe(10);
});

it('never keeps a document larger than a small one', () => {
  const held = new HeldDocuments(SMALL_DOCUMENT_BYTES * 4);
  expect(held.keep('big', Buffer.alloc(SMALL_DOCUMENT_BYTES + 1))).toBe(false);
  expect(held.keep('small', Buffer.alloc(SMALL_DOCUMENT_BYTES))).toBe(true);
});

it('the submission sends the bytes the download kept, then lets them go', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'held-'));
  const db = openAgentDatabase(':memory:');
  const ledger = new JobLedger(db, systemClock);
  const bytes = Buffer.from('%PDF-kept');
  const sent: (Buffer | undefined)[] = [];
  class Printer extends FakePrinter {
    readonly uri = 'fake://held';
    async submit(job: BackendJob): Promise<SubmittedJob> {
      sent.push(job.documentBytes);
      return { printerJobId: this.hold(job.jobName, { state: 'completed', reasons: [] }) };
    }
  }
  const runner = new JobRunner({
    ledger,
    emit: () => {},
    download: async (offer, target) => {
      writeFileSync(target, bytes);
      return offer.job_id === 'kept' ? bytes : undefined;
    },
    jobs: {
      retry_initial_ms: 5,
      retry_max_ms: 50,
      give_up_after_s: 60,
      download_attempts: 3,
      status_poll_ms: 5,
    },
    spoolDir: dir,
    clock: systemClock,
    logger: silentLogger(),
  });
  for (const id of ['kept', 'file']) {
    ledger.add(jobOffer(id));
    await runner.run(id, new Printer(), quietControl());
    expect(ledger.get(id)?.state).toBe('completed');
  }
  expect(sent).toEqual([bytes, undefined]);
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
