/**
 * IPP counters against the real ippeveprinter: it reports no printer-impressions-completed, so
 * the IPP count source refuses at session start (naming the printer) and a station falls back to
 * its next source.
 */
import { describe, expect, inject, it } from 'vitest';
import { CopyEventCounter } from '../../src/agent/copyjobs/copy-events.js';
import { CopyTracker } from '../../src/agent/copyjobs/copy-tracker.js';
import { IppCounterSource } from '../../src/agent/copyjobs/ipp-counters.js';
import { ManualClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { LocalJobStore } from '../../src/store/local-job-store.js';
import { Outbox } from '../../src/store/outbox.js';
import { peersAvailable } from '../support/peers.js';

const uri = inject('ippeveprinterUri');
const havePrinter = peersAvailable('ippeveprinter') && uri !== '';

describe.runIf(havePrinter)('IPP counters of ippeveprinter', () => {
  it('are missing: the source refuses, and the station counts with its next source', async () => {
    const ipp = new IppCounterSource(uri, silentLogger());
    await expect(ipp.read()).rejects.toThrow(
      `${uri.replace(/\?.*$/, '')} reports no printer-impressions-completed`,
    );

    const clock = new ManualClock();
    const db = openAgentDatabase(':memory:');
    const store = new LocalJobStore(
      db,
      new Outbox(db, clock, { initialMs: 1, maxMs: 1, factor: 1, jitter: 0 }),
      clock,
    );
    const app = new CopyEventCounter();
    const tracker = new CopyTracker({
      station: 'front',
      printer: 'P',
      sources: [ipp, app],
      store,
      clock,
      logger: silentLogger(),
      ui: { message: () => {} },
      paperId: 9,
      pollIntervalMs: 3_600_000,
      sessionTimeoutMs: 180_000,
      onQueued: () => {},
    });
    await tracker.cardPresent('card-1');
    expect(await tracker.postEvent({ pages: 2 })).toBe('recorded');
    await tracker.cardRemoved();
    expect(store.recent().map((r) => [r.source, r.status, r.fields.TotalPrintedPages])).toEqual([
      ['http', 'Succeeded', 2],
    ]);
    await tracker.stop();
    db.close();
  });
});
