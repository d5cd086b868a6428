/**
 * The spool folder's sweep at start (spool-sweep.ts): a crash between a job's final state and the
 * removal of its spool file leaves the file behind; the next start removes it, and every file an
 * unfinished job may still read (its recorded spool file, the name its download writes to) stays.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spoolTarget } from '../../../../src/agent/jobs/download-step.js';
import { JobLoop } from '../../../../src/agent/jobs/job-loop.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { sweepSpool } from '../../../../src/agent/jobs/spool-sweep.js';
import { systemClock } from '../../../../src/lib/clock.js';
import { jobOffer } from '../../../support/job-offers.js';
import { JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';

describe('sweepSpool', () => {
  let rig: JobStepRig;

  /** A ledger with `offered` (downloading, a part written), `spooled` (file recorded) and `ended`. */
  const crashedState = () => {
    const { ledger } = rig;
    for (const id of ['offered', 'spooled', 'ended']) ledger.add(jobOffer(id));
    // Recorded under a name other than its download's (as an earlier version named them).
    const spooled = join(rig.spoolDir, 'spooled-1.pdf');
    ledger.move('spooled', 'downloading');
    ledger.move('spooled', 'spooled', { spoolPath: spooled });
    ledger.move('ended', 'downloading');
    ledger.move('ended', 'spooled', { spoolPath: join(rig.spoolDir, 'ended.pdf') });
    ledger.move('ended', 'failed', { lastError: 'the printer refused it' });
    const partial = spoolTarget(rig.spoolDir, ledger.get('offered')!);
    for (const file of [partial, spooled, join(rig.spoolDir, 'ended.pdf'), join(rig.spoolDir, 'stray.tmp')])
      writeFileSync(file, '%PDF-');
    mkdirSync(join(rig.spoolDir, 'a-folder'));
    return { partial, spooled };
  };

  beforeEach(() => {
    rig = new JobStepRig({ clock: systemClock });
  });
  afterEach(() => rig.close());

  it("removes the files of ended jobs and strays, keeps every unfinished job's, leaves folders alone", () => {
    const { partial, spooled } = crashedState();
    const sweep = sweepSpool(rig.spoolDir, rig.ledger.unfinished(), rig.log);
    expect(sweep).toEqual({ removed: expect.arrayContaining(['ended.pdf', 'stray.tmp']), failed: [] });
    expect(sweep.removed).toHaveLength(2);
    expect(readdirSync(rig.spoolDir).sort()).toEqual(['a-folder', 'offered.pdf', 'spooled-1.pdf']);
    expect(existsSync(partial) && existsSync(spooled)).toBe(true);
    expect(rig.logged('removed spool files of jobs that had ended before a crash')).toEqual([
      expect.objectContaining({ level: 'info', files: 2 }),
    ]);
  });

  it('names each file it could not remove in a warning and goes on with the rest', () => {
    crashedState();
    const tried: string[] = [];
    const sweep = sweepSpool(rig.spoolDir, rig.ledger.unfinished(), rig.log, (path) => {
      tried.push(path);
      if (path.endsWith('ended.pdf')) throw new Error('EBUSY: resource busy or locked');
    });
    expect(tried).toHaveLength(2);
    expect(sweep).toEqual({ removed: ['stray.tmp'], failed: ['ended.pdf'] });
    expect(rig.logged('could not remove a stale spool file')).toEqual([
      expect.objectContaining({ level: 'warn', file: 'ended.pdf', error: 'EBUSY: resource busy or locked' }),
    ]);
    expect(rig.logged('removed spool files of jobs that had ended before a crash')).toEqual([
      expect.objectContaining({ files: 1 }),
    ]);
  });

  it('logs nothing when there is nothing to remove', () => {
    expect(sweepSpool(rig.spoolDir, [], rig.log)).toEqual({ removed: [], failed: [] });
    expect(rig.lines).toEqual([]);
  });

  it('runs when the job loop starts, before the unfinished jobs resume', async () => {
    crashedState();
    const loop = new JobLoop({
      ledger: rig.ledger,
      runner: new JobRunner(rig.deps({ download: async (_offer, target) => writeFileSync(target, '%PDF-') })),
      emit: rig.deps().emit,
      backendFor: () => new RecordingPrinter(),
      spoolDir: rig.spoolDir,
      logger: rig.log,
    });
    loop.start();
    expect(existsSync(join(rig.spoolDir, 'ended.pdf'))).toBe(false);
    expect(existsSync(join(rig.spoolDir, 'stray.tmp'))).toBe(false);
    expect(rig.logged('removed spool files of jobs that had ended before a crash')).toHaveLength(1);
    await loop.stop();
  });
});
