import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorDatabase, openEmulatorDatabase } from '../../../../src/emulator/store/database.js';
import {
  type AttemptOutcome,
  WebhookDeliveryRepo,
} from '../../../../src/emulator/webhooks/webhook-delivery-repo.js';

const T = Date.UTC(2026, 9, 1);
const EP = '0190aaaa-0000-4000-8000-00000000000a';
const OTHER = '0190aaaa-0000-4000-8000-00000000000b';
const id = (n: number) => `01920000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('WebhookDeliveryRepo', () => {
  let db: EmulatorDatabase;
  let repo: WebhookDeliveryRepo;

  beforeEach(() => {
    db = openEmulatorDatabase(':memory:');
    db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('o', 'Org', 1)").run();
    for (const endpoint of [EP, OTHER])
      db.prepare(
        `INSERT INTO webhook_endpoints (id, organization_id, name, url, topics_json, created_at, updated_at)
         VALUES (?, 'o', 'A', 'https://a.example/hook', '["printjob_succeeded"]', 1, 1)`,
      ).run(endpoint);
    repo = new WebhookDeliveryRepo(db);
  });
  afterEach(() => db.close());

  function queue(n: number, endpoints: string[] = [EP]): void {
    repo.enqueue(
      { eventId: id(n), topic: 'printjob_succeeded', createdAt: T, body: `{"n":${n}}` },
      endpoints,
      T,
    );
  }

  const delivered = (n: number, endpointId = EP): AttemptOutcome => ({
    endpointId,
    eventId: id(n),
    status: 'queued',
    inRetryAll: false,
  });

  /** Event numbers of the rows left, per endpoint and status. */
  function left(endpointId = EP): string[] {
    return (
      db
        .prepare('SELECT status, event_id FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY event_id')
        .all(endpointId) as { status: string; event_id: string }[]
    ).map((r) => `${r.status} ${Number(r.event_id.slice(-12))}`);
  }

  it('deletes exactly the delivered rows when undelivered ones lie between them', () => {
    for (let n = 1; n <= 20; n += 1) queue(n);
    // Delivered out of order, with 5, 6 and 12 still in flight and 20 not read yet.
    const done = [3, 1, 2, 4, 8, 7, 9, 10, 11, 13, 15, 14, 16, 17, 18, 19].map((n) => delivered(n));
    repo.recordOutcomes(done);
    expect(left()).toEqual(['queued 5', 'queued 6', 'queued 12', 'queued 20']);
  });

  it('never deletes a row queued after the batch was read, even inside the batch key range', () => {
    for (const n of [10, 20, 30, 40]) queue(n);
    // Event 25 arrived after 10..40 were read (its key sorts in between).
    queue(25);
    repo.recordOutcomes([10, 20, 30, 40].map((n) => delivered(n)));
    expect(left()).toEqual(['queued 25']);
  });

  it('deletes the whole batch when the key range holds more than twice as many rows as it', () => {
    for (let n = 1; n <= 30; n += 1) queue(n);
    // 1, 2 and 30 delivered: between 2 and 30 lie 27 undelivered rows, more than the read limit.
    repo.recordOutcomes([1, 2, 30].map((n) => delivered(n)));
    expect(left()).toEqual(Array.from({ length: 27 }, (_, i) => `queued ${i + 3}`));
  });

  it('touches no other endpoint, and deletes a row whose status changed since it was read', () => {
    for (let n = 1; n <= 6; n += 1) queue(n, [EP, OTHER]);
    // Event 3 failed once meanwhile (a manual retry) and is now pending; its delivery still counts.
    repo.failed(EP, id(3), {
      status: 'pending',
      attempts: 1,
      firstAttemptAt: T,
      lastAttemptAt: T,
      nextAttemptAt: T + 60_000,
      error: 'timeout',
      responseStatusCode: null,
    });
    repo.recordOutcomes([1, 2, 3, 4, 5].map((n) => delivered(n)));
    expect(left()).toEqual(['queued 6']);
    expect(left(OTHER)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `queued ${n}`));
  });

  it('records a failed attempt of the batch and deletes its delivered neighbours', () => {
    for (let n = 1; n <= 5; n += 1) queue(n);
    const failure = {
      status: 'pending' as const,
      attempts: 1,
      firstAttemptAt: T,
      lastAttemptAt: T,
      nextAttemptAt: T + 60_000,
      error: 'response_status_code' as const,
      responseStatusCode: 500,
    };
    repo.recordOutcomes([
      delivered(1),
      delivered(2),
      { ...delivered(3), failure },
      delivered(4),
      delivered(5),
    ]);
    expect(left()).toEqual(['pending 3']);
    expect(repo.find(EP, id(3))).toMatchObject({
      attempts: 1,
      responseStatusCode: 500,
      error: 'response_status_code',
    });
  });

  describe('due reads of queued deliveries', () => {
    const summary = (rows: { eventId: string; body: string; nextAttemptAt: number | null }[]) =>
      rows.map((d) => `${Number(d.eventId.slice(-12))} ${d.body} ${d.nextAttemptAt}`);

    it('gives the same deliveries from the recent bodies as a repository that never saw them queued', () => {
      for (let n = 1; n <= 6; n += 1) queue(n);
      // A second repository over the same database is what a restarted emulator has: no recent body.
      const restarted = new WebhookDeliveryRepo(db);
      const expected = [3, 4, 5].map((n) => `${n} {"n":${n}} ${T}`);
      expect(summary(repo.dueFor(EP, T, 3, id(2)))).toEqual(expected);
      expect(summary(restarted.dueFor(EP, T, 3, id(2)))).toEqual(expected);
      expect(repo.dueFor(EP, T, 10).map((d) => d.status)).toEqual(Array(6).fill('queued'));
    });

    it('reads a row queued by another repository (no recent body) among recent ones', () => {
      queue(1);
      new WebhookDeliveryRepo(db).enqueue(
        { eventId: id(2), topic: 'printjob_succeeded', createdAt: T, body: '{"other":2}' },
        [EP],
        T,
      );
      queue(3);
      expect(summary(repo.dueFor(EP, T, 10))).toEqual([
        `1 {"n":1} ${T}`,
        `2 {"other":2} ${T}`,
        `3 {"n":3} ${T}`,
      ]);
    });

    it('leaves out a queued delivery not due yet (the clock behind its queue time), as the rows say', () => {
      queue(1);
      repo.enqueue(
        { eventId: id(2), topic: 'printjob_succeeded', createdAt: T, body: '{"n":2}' },
        [EP],
        T + 5000,
      );
      expect(summary(repo.dueFor(EP, T, 10))).toEqual([`1 {"n":1} ${T}`]);
      expect(summary(repo.dueFor(EP, T + 5000, 10))).toEqual([`1 {"n":1} ${T}`, `2 {"n":2} ${T + 5000}`]);
    });

    it('reads nothing for a delivered event whose body it still remembers', () => {
      queue(1);
      queue(2);
      repo.recordOutcomes([delivered(1)]);
      expect(summary(repo.dueFor(EP, T, 10))).toEqual([`2 {"n":2} ${T}`]);
    });
  });
});
