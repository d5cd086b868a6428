import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorDatabase, openEmulatorDatabase } from '../../../../src/emulator/store/database.js';
import { WebhookDeliveryRepo } from '../../../../src/emulator/webhooks/webhook-delivery-repo.js';
import { DueReadAhead } from '../../../../src/emulator/webhooks/webhook-read-ahead.js';
import { ManualClock } from '../../../../src/lib/clock.js';

const T = Date.UTC(2026, 9, 1);
const EP = '0190aaaa-0000-4000-8000-00000000000a';
const id = (n: number) => `01920000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('DueReadAhead', () => {
  let db: EmulatorDatabase;
  let repo: WebhookDeliveryRepo;
  let clock: ManualClock;
  /** Ids handed out (started; their outcomes never written in these tests). */
  let started: Set<string>;
  let writes: number;
  const busy = (d: { eventId: string }) => started.has(d.eventId);
  const writeOutcomes = () => {
    writes += 1;
  };

  beforeEach(() => {
    db = openEmulatorDatabase(':memory:');
    db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('o', 'Org', 1)").run();
    db.prepare(
      `INSERT INTO webhook_endpoints (id, organization_id, name, url, topics_json, created_at, updated_at)
       VALUES (?, 'o', 'A', 'https://a.example/hook', '["printjob_succeeded"]', 1, 1)`,
    ).run(EP);
    repo = new WebhookDeliveryRepo(db);
    clock = new ManualClock(T);
    started = new Set();
    writes = 0;
  });
  afterEach(() => db.close());

  function queue(n: number): void {
    repo.enqueue({ eventId: id(n), topic: 'printjob_succeeded', createdAt: T, body: `{"n":${n}}` }, [EP], T);
  }

  /** Takes deliveries until none is left; their ids. */
  function drain(reader: DueReadAhead): string[] {
    const ids: string[] = [];
    for (let d = reader.next(EP, busy, writeOutcomes); d; d = reader.next(EP, busy, writeOutcomes)) {
      started.add(d.eventId);
      ids.push(d.eventId);
    }
    return ids;
  }

  it('reads on from the last queued id while deliveries are buffered, so no outcome has to be written first', () => {
    for (let n = 1; n <= 12; n += 1) queue(n);
    const reader = new DueReadAhead(repo, clock, 5, 2);
    expect(drain(reader)).toEqual(Array.from({ length: 12 }, (_, i) => id(i + 1)));
    // One read from the start (outcomes written before it) when the buffer was empty at first,
    // one when it ran empty at the end; the top-ups in between wrote nothing.
    expect(writes).toBe(2);
  });

  it('reads from the start again once the buffer ran empty, finding what came after and skipping busy ones', () => {
    for (let n = 1; n <= 3; n += 1) queue(n);
    const reader = new DueReadAhead(repo, clock, 5, 2);
    expect(drain(reader)).toEqual([id(1), id(2), id(3)]);
    queue(4);
    started.delete(id(2));
    expect(drain(reader)).toEqual([id(2), id(4)]);
  });

  it('tops up only while the buffer holds queued deliveries, so a due retry is never handed out twice', () => {
    queue(1);
    repo.failed(EP, id(1), {
      status: 'pending',
      attempts: 1,
      firstAttemptAt: T - 60_000,
      lastAttemptAt: T - 60_000,
      nextAttemptAt: T - 1,
      error: 'timeout',
      responseStatusCode: null,
    });
    for (let n = 2; n <= 8; n += 1) queue(n);
    const reader = new DueReadAhead(repo, clock, 4, 3);
    const ids = drain(reader);
    expect(ids).toEqual([id(1), id(2), id(3), id(4), id(5), id(6), id(7), id(8)]);
  });

  it('starts over after forget()', () => {
    for (let n = 1; n <= 6; n += 1) queue(n);
    const reader = new DueReadAhead(repo, clock, 6, 1);
    expect(reader.next(EP, busy, writeOutcomes)?.eventId).toBe(id(1));
    reader.forget(EP);
    expect(reader.next(EP, busy, writeOutcomes)?.eventId).toBe(id(1));
    expect(writes).toBe(2);
  });
});
