/**
 * A job step and its event are one ledger transaction (one commit): the ledger never holds a step
 * whose event the outbox could not take, and the outbox never holds the event of a step the
 * ledger did not take. Each case makes the outbox fail on one event and checks the step did not
 * happen either.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JobOutcomes } from '../../../../src/agent/jobs/job-outcomes.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../../../src/agent/jobs/job-runner-types.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BackendJob, SubmittedJob } from '../../../../src/printing/printer-backend.js';
import type { JobLedger } from '../../../../src/store/job-ledger.js';
import type { NewJobEvent, Outbox } from '../../../../src/store/outbox.js';
import { FakePrinter } from '../../../support/fake-printer.js';
import { quietControl } from '../../../support/job-control.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig } from '../../../support/job-step-rig.js';

/** Takes every job and completes it at once. */
class QuickPrinter extends FakePrinter {
  readonly uri = 'fake://quick';
  async submit(job: BackendJob): Promise<SubmittedJob> {
    return { printerJobId: this.hold(job.jobName, { state: 'completed', reasons: [], pagesCompleted: 1 }) };
  }
}

let rig: JobStepRig;
let ledger: JobLedger;
let outbox: Outbox;
/** The event kind the outbox refuses (as a full disk would). */
let refused: NewJobEvent['kind'] | undefined;

function emit(jobId: string, event: NewJobEvent): void {
  if (event.kind === refused) throw new Error(`disk full (${event.kind})`);
  outbox.add(jobId, event);
}

function deps(): JobRunnerDeps {
  return rig.deps({ emit, download: async (_offer, target) => writeFileSync(target, '%PDF-') });
}

function runner(): JobRunner {
  return new JobRunner(deps());
}

beforeEach(() => {
  rig = new JobStepRig();
  ({ ledger, outbox } = rig);
  refused = undefined;
});
afterEach(() => rig.close());

it('an offer whose received event cannot be queued is not recorded (it is offered again)', () => {
  const loop = rig.loop(runner(), () => new QuickPrinter(), { emit });
  loop.start();
  refused = 'received';
  expect(loop.offer(jobOffer('a'))).toBe(false);
  expect(ledger.get('a')).toBeUndefined();
  expect(outbox.size()).toBe(0);
});

it('a submission whose printing event cannot be queued is not recorded submitted', () => {
  ledger.add(jobOffer('b'));
  ledger.move('b', 'downloading');
  ledger.move('b', 'spooled', { spoolPath: join(rig.spoolDir, 'b.pdf') });
  const job = ledger.move('b', 'submitting', { attempt: true });
  const outcomes = new JobOutcomes(deps());
  refused = 'printing';
  expect(() => outcomes.submittedAs(job, '7', silentLogger())).toThrow(/disk full/);
  expect(ledger.get('b')).toMatchObject({ state: 'submitting', printerJobId: undefined });
  expect(outcomes.step('b', 'submitted', { printerJobId: '7' }, { kind: 'progress' }).state).toBe(
    'submitted',
  );
  expect(outbox.pendingFor('b').map((p) => p.event.kind)).toEqual(['progress']);
});

it('each step and its event are recorded together', async () => {
  ledger.add(jobOffer('c'));
  const jobs = runner();
  const printer = new QuickPrinter();
  await jobs.run('c', printer, quietControl());
  expect(ledger.get('c')?.state).toBe('completed');
  expect(outbox.pendingFor('c').map((p) => p.event.kind)).toEqual(['downloading', 'printing', 'completed']);
});
