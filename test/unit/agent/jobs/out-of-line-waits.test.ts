/**
 * OutOfLineWaits through the real JobLoop and JobRunner (SQLite ledger and outbox): a job that
 * waits out of its printer's line, a resumed job whose document cannot be fetched again, comes
 * back when its timer fires. Pinned here: a job whose printer is no longer served when it comes
 * back fails with the reason (never tried again, never printed), and a cancel that comes while
 * its try beside the line is still running ends it, never printed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { jobOffer } from '../../../support/job-offers.js';
import { quietControl } from '../../../support/job-control.js';
import { JobStepRig, RecordingPrinter, eachTurnUntil } from '../../../support/job-step-rig.js';

const DOCUMENT = Buffer.from('%PDF-1.4 one page');

describe('a job waiting out of its printer line', () => {
  let rig: JobStepRig;
  let printer: RecordingPrinter;
  let loop: JobLoop | undefined;
  /** Fetches of the document asked so far. */
  let asked = 0;
  /** While set, a fetch waits for it (the cloud takes the request and has not answered yet). */
  let hanging: Promise<void> | undefined;
  /** While true, a fetch fails as an unreachable cloud does. */
  let failing = false;
  const served = new Set<string>();

  const download = async (): Promise<Buffer> => {
    asked++;
    if (hanging) await hanging;
    if (failing) throw new RetryableError('network', 'GET /d/A: ECONNREFUSED');
    return Buffer.from(DOCUMENT);
  };
  const runner = () => new JobRunner(rig.deps({ download, random: () => 1 }));
  const state = (id: string) => rig.ledger.get(id)?.state;
  const until = eachTurnUntil;

  /** Job A, spooled in memory by an earlier life of the agent; the restarted loop resumes it. */
  const restartWithALost = async () => {
    rig.ledger.add(jobOffer('A', { size: DOCUMENT.length }));
    expect(await runner().prepare('A', quietControl())).toMatchObject({ state: 'spooled' });
    asked = 0;
    failing = true;
    loop = rig.loop(runner(), (id) => (served.has(id) ? printer : undefined));
    loop.start();
    return loop;
  };

  beforeEach(() => {
    rig = new JobStepRig({ clock: new ManualClock(), jobs: { download_attempts: 50 } });
    printer = new RecordingPrinter();
    served.clear();
    served.add('p1');
    asked = 0;
    hanging = undefined;
    failing = false;
    loop = undefined;
  });
  afterEach(async () => {
    await loop?.stop();
    rig.close();
  });

  it('fails, never printed, when its printer is no longer served as it comes back', async () => {
    await restartWithALost();
    await until(() => asked >= 1);
    served.delete('p1');
    await until(() => state('A') === 'failed');
    const reason = 'printer p1 is not configured at this connector';
    expect(rig.ledger.get('A')?.lastError).toBe(reason);
    expect(rig.outbox.pendingFor('A').at(-1)?.event).toMatchObject({ kind: 'failed', error_code: 3011 });
    expect(printer.submitted).toHaveLength(0);
    expect(loop?.backlog()).toBe(0);
  });

  it('ends cancelled, never printed, when the cancel comes during its try beside the line', async () => {
    const agent = await restartWithALost();
    await until(() => asked >= 1);
    let answer = () => {};
    hanging = new Promise<void>((resolve) => (answer = resolve));
    const before = asked;
    await until(() => asked > before);
    agent.cancel('A');
    hanging = undefined;
    answer();
    await until(() => state('A') === 'cancelled');
    expect(rig.kinds('A').at(-1)).toBe('cancelled');
    expect(printer.submitted).toHaveLength(0);
    await until(() => agent.backlog() === 0);
  });
});
