/**
 * JobService's outcome hook: the listener hears each final state once, inside the storing
 * transaction, and a listener that throws rolls back only its own writes, never the job's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorContext } from '../../src/emulator/context.js';
import type { JobRecord } from '../../src/emulator/jobs/job-repo.js';
import { JobService } from '../../src/emulator/jobs/job-service.js';
import { silentLogger } from '../../src/log/logger.js';
import { DEMO, type Harness, passwordToken, startHarness } from './emulator-harness.js';
import { connectorWithPrinter, createJob } from './emulator-job-driver.js';

describe('job outcome listener', () => {
  let h: Harness;
  let ctx: EmulatorContext;
  let connectorId: string;
  let printerId: string;

  beforeAll(async () => {
    h = await startHarness();
    ctx = h.emulator.app.emulator;
    const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
    ({ connectorId, printerId } = await connectorWithPrinter(h, token, 'OUT-1', {
      printer: 'Outcome printer',
    }));
  });
  afterAll(async () => {
    await h?.close();
  });

  const jobOf = (service: JobService) => createJob(h, printerId, { jobs: service });

  const at = () => new Date(h.clock.now()).toISOString();

  it('hears completed once (a repeated event changes nothing) and cancelled', async () => {
    const heard: JobRecord[] = [];
    const service = new JobService(ctx.store, h.clock, silentLogger(), ctx.hub, {
      jobEnded: (j) => heard.push(j),
    });
    const connector = ctx.store.connectors.findById(connectorId)!;
    const done = await jobOf(service);
    service.claim(connector, done);
    const completed = { event_id: `o-${done}`, seq: 1, kind: 'completed', at: at(), pages_printed: 2 };
    expect(await service.applyEvent(connector, done, completed)).toBe(true);
    expect(await service.applyEvent(connector, done, completed)).toBe(false);
    const cancelled = await jobOf(service);
    expect(service.cancel(ctx.store.users.findByEmail(DEMO.admin.email)!.organizationId, cancelled)).toBe(
      true,
    );
    expect(heard.map((j) => [j.id, j.state, j.pagesPrinted])).toEqual([
      [done, 'completed', 2],
      [cancelled, 'cancelled', 0],
    ]);
  });

  it('stores the final state even when the listener throws, and rolls back what the listener wrote', async () => {
    const service = new JobService(ctx.store, h.clock, silentLogger(), ctx.hub, {
      jobEnded: (job) => {
        ctx.store.db
          .prepare('UPDATE jobs SET message = ? WHERE id = ?')
          .run('written by the listener', job.id);
        throw new Error('listener failed');
      },
    });
    const connector = ctx.store.connectors.findById(connectorId)!;
    const jobId = await jobOf(service);
    service.claim(connector, jobId);
    const failed = { event_id: `f-${jobId}`, seq: 1, kind: 'failed', at: at(), error_code: 3011 };
    expect(await service.applyEvent(connector, jobId, failed)).toBe(true);
    const stored = ctx.store.jobs.findById(jobId)!;
    expect([stored.state, stored.errorCode, stored.message]).toEqual(['failed', 3011, null]);
  });
});
