/**
 * The cloud unreachable for a simulated 26 hours during copy sessions (one ManualClock drives
 * the emulator and the agent side; a TCP proxy in front of the emulator resets connections while
 * the cloud is "down"): every copy job reaches the emulator, in order, with the right tracking
 * mode — Pending with updates while the cloud answers, single-request for sessions that ended
 * during the outage, and a continuation for the job the cloud closed after 24 h.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CopyEventCounter } from '../../src/agent/copyjobs/copy-events.js';
import { CopyTracker } from '../../src/agent/copyjobs/copy-tracker.js';
import { LocalJobSender } from '../../src/agent/copyjobs/local-job-sender.js';
import { tpfmLocalJobTransport } from '../../src/agent/copyjobs/local-job-transport.js';
import { TpfmClient } from '../../src/client/tpfm-client.js';
import { LocalJobService } from '../../src/emulator/pull/local-jobs/local-job-service.js';
import { silentLogger } from '../../src/log/logger.js';
import { type AgentDatabase, openAgentDatabase } from '../../src/store/agent-db.js';
import { LocalJobStore } from '../../src/store/local-job-store.js';
import { Outbox } from '../../src/store/outbox.js';
import { startSwitchableProxy, type SwitchableProxy } from '../support/switchable-proxy.js';
import { DEMO, startTpfmHarness, type TpfmHarness } from './emulator-tpfm-harness.js';

const HOUR = 3600_000;
const CARD = DEMO.user.card;

interface CloudJob {
  rowid: number;
  state: string;
  fields: Record<string, number>;
  created_at: number;
  updated_at: number;
}

describe('copy jobs across a 26-hour cloud outage', () => {
  let h: TpfmHarness;
  let proxy: SwitchableProxy;
  let db: AgentDatabase;
  let outbox: Outbox;
  let store: LocalJobStore;
  let client: TpfmClient;
  let sender: LocalJobSender;
  let counter: CopyEventCounter;
  let tracker: CopyTracker;
  const shown: string[] = [];

  beforeEach(async () => {
    h = await startTpfmHarness();
    proxy = await startSwitchableProxy(h.baseUrl);
    db = openAgentDatabase(':memory:');
    outbox = new Outbox(db, h.clock, { initialMs: 1000, maxMs: 15 * 60_000, factor: 2, jitter: 0.5 });
    store = new LocalJobStore(db, outbox, h.clock);
    const logger = silentLogger();
    client = new TpfmClient({
      baseUrl: proxy.url,
      password: DEMO.printer.pullPrintingPassword,
      userAgent: 'copyjobs test',
      logger,
    });
    sender = new LocalJobSender({
      db,
      outbox,
      store,
      transport: tpfmLocalJobTransport((station) => (station === 'front' ? client : undefined)),
      clock: h.clock,
      logger,
    });
    counter = new CopyEventCounter();
    tracker = new CopyTracker({
      station: 'front',
      printer: DEMO.printer.name,
      sources: [counter],
      store,
      clock: h.clock,
      logger,
      ui: { message: (_kind, text) => shown.push(text) },
      paperId: 9,
      pollIntervalMs: 3_600_000,
      sessionTimeoutMs: 180_000,
      onQueued: () => {},
    });
  });

  afterEach(async () => {
    await tracker.stop();
    await client.close();
    await proxy.close();
    db.close();
    await h.close();
  });

  /** The emulator's local jobs in creation order, with the 24-hour rule applied. */
  const cloudJobs = (): CloudJob[] => {
    const { store: cloud } = h.emulator.app.emulator;
    const service = new LocalJobService(cloud, h.clock, silentLogger());
    const rows = cloud.db.prepare('SELECT rowid, id FROM local_jobs ORDER BY rowid').all() as {
      rowid: number;
      id: string;
    }[];
    return rows.map(({ rowid, id }) => {
      const job = service.find(id)!;
      return {
        rowid,
        state: job.state,
        fields: job.fields as Record<string, number>,
        created_at: job.createdAt,
        updated_at: job.updatedAt,
      };
    });
  };

  /** One copy session: card, copy runs (pages each), card removed. */
  async function session(runs: number[]): Promise<void> {
    await tracker.cardPresent(CARD);
    for (const pages of runs) {
      expect(await tracker.postEvent({ pages, copies: 1 })).toBe('recorded');
      await tracker.poll();
      await sender.flush();
      h.clock.advance(60_000);
    }
    await tracker.cardRemoved();
    await sender.flush();
  }

  it('delivers every record in order, single-request after the outage, and continues the closed job', async () => {
    // A: starts online (Pending job created, then updated), the cloud goes down mid-session.
    await tracker.cardPresent(CARD);
    await tracker.postEvent({ pages: 2 });
    await tracker.poll();
    expect(await sender.flush()).toBe(1);
    await tracker.postEvent({ pages: 3 });
    await tracker.poll();
    expect(await sender.flush()).toBe(1);
    proxy.online = false;
    await tracker.postEvent({ pages: 4 });
    await tracker.poll();
    await tracker.cardRemoved();
    // B and C: whole sessions inside the outage.
    await session([5]);
    await session([1, 6]);
    // 26 hours of retries, one round every 20 minutes: nothing gets through, nothing is dropped.
    for (let t = 0; t < 26 * 3; t++) {
      h.clock.advance(20 * 60_000);
      expect(await sender.flush()).toBe(0);
    }
    const stats = outbox.stats();
    expect(stats.byKind['local-job'].depth).toBe(7); // A: update + finish; B: create + finish; C: create + update + finish
    expect(stats.oldestAgeMs).toBeGreaterThanOrEqual(26 * HOUR);
    expect(stats.lastError).toMatch(/ECONNRESET|socket|other side closed/i);
    expect(cloudJobs()).toHaveLength(1);

    proxy.online = true;
    h.clock.advance(HOUR);
    expect(await sender.flush()).toBe(3);
    // D: after the outage, a normal session again: Pending, updated, Succeeded.
    await session([2, 2]);

    expect(outbox.stats()).toMatchObject({ depth: 0, oldestAgeMs: 0, retrying: 0 });
    const jobs = cloudJobs();
    expect(jobs.map((j) => [j.state, j.fields.TotalPrintedPages])).toEqual([
      ['closed', 5], // A as the cloud had it when the outage began; closed after 24 h
      ['Succeeded', 4], // A's rest, as a continuation (single request)
      ['Succeeded', 5], // B: single request
      ['Succeeded', 7], // C: single request, both runs
      ['Succeeded', 4], // D: Pending, updated, then Succeeded
    ]);
    for (const single of jobs.slice(1, 4)) expect(single.updated_at).toBe(single.created_at);
    expect(jobs[4]!.updated_at).toBeGreaterThan(jobs[4]!.created_at);
    const tracking = store.recent().map((r) => [r.tracking, r.deliveredStatus, r.fields.TotalPrintedPages]);
    expect(tracking.reverse()).toEqual([
      ['continued', 'Succeeded', 9],
      ['single', 'Succeeded', 5],
      ['single', 'Succeeded', 7],
      ['pending', 'Succeeded', 4],
    ]);
    expect(shown).toEqual([
      'Copies recorded: 9 pages',
      'Copies recorded: 5 pages',
      'Copies recorded: 7 pages',
      'Copies recorded: 4 pages',
    ]);
  });
});
