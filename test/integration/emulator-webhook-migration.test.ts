import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { describe, expect, it } from 'vitest';
import { defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import { runMigrations, schemaVersion } from '../../src/emulator/store/database.js';
import { EmulatorStore } from '../../src/emulator/emulator-store.js';
import { MIGRATIONS } from '../../src/emulator/store/migrations.js';
import { SecretHasher } from '../../src/emulator/store/secret-hash.js';
import { applySeed } from '../../src/emulator/seed-loader.js';
import { ManualClock } from '../../src/lib/clock.js';
import { answer, type Behaviour } from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { call, type Harness, passwordToken } from './emulator-harness.js';
import { webhookTestBed } from './webhook-test-bed.js';

const haveOpenssl = peersAvailable('openssl');
const T = Date.UTC(2026, 8, 1, 12);
const MINUTE = 60_000;
const A = '0190aaaa-0000-4000-8000-00000000000a';
const B = '0190bbbb-0000-4000-8000-00000000000b';
/** Time-ordered event ids, as the emulator makes them. */
const E = [
  '01920000-0000-7000-8000-000000000001',
  '01920000-0000-7000-8000-000000000002',
  '01920000-0000-7000-8000-000000000003',
  '01920000-0000-7000-8000-000000000004',
  '01920000-0000-7000-8000-000000000005',
] as const;
const body = (n: number) => `{"event_id":"${E[n - 1]}","n":${n}}`;

/** The v20 rows: [endpoint, event, status, attempts, first, last, next, error, code, in retry-all]. */
const V20_DELIVERIES = [
  [A, E[0], 'queued', 0, null, null, T - MINUTE, null, null, 0],
  [A, E[1], 'pending', 2, T - 9 * MINUTE, T - 3 * MINUTE, T + 5 * MINUTE, 'timeout', null, 1],
  [A, E[2], 'failed', 40, T - 4 * 24 * 60 * MINUTE, T - 20 * MINUTE, null, 'response_status_code', 503, 1],
  [A, E[3], 'pending', 1, T - 2 * MINUTE, T - 2 * MINUTE, T + 10 * MINUTE, 'response_status_code', 500, 0],
  [A, E[4], 'failed', 41, T - 5 * 24 * 60 * MINUTE, T - 30 * MINUTE, null, 'timeout', null, 1],
  [B, E[4], 'queued', 0, null, null, T - 30 * MINUTE, null, null, 0],
] as const;

describe.runIf(haveOpenssl)('webhook queue migration 21', () => {
  const bed = webhookTestBed('webhook-migration-');
  const receiver = (behaviour: Behaviour) => bed.receiver(behaviour);

  /** A seeded database file at migration 20 with endpoints A and B, their queue and A's retry-all run. */
  async function v20Database(path: string, urlA: string, urlB: string): Promise<void> {
    const db = openSqlite(path);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    runMigrations(
      db,
      MIGRATIONS.filter((m) => m.version <= 20),
    );
    await applySeed(new EmulatorStore(db), defaultEmulatorSeed(), T, new SecretHasher(new ManualClock(T)));
    const org = (db.prepare("SELECT id FROM organizations WHERE name = 'Demo Org'").get() as { id: string })
      .id;
    const endpoint = db.prepare(
      `INSERT INTO webhook_endpoints (id, organization_id, name, url, topics_json, created_at, updated_at)
       VALUES (?, ?, ?, ?, '["printjob_succeeded","printjob_failed"]', ?, ?)`,
    );
    endpoint.run(A, org, 'A', urlA, T - 60 * MINUTE, T - 60 * MINUTE);
    endpoint.run(B, org, 'B', urlB, T - 50 * MINUTE, T - 50 * MINUTE);
    const event = db.prepare(
      'INSERT INTO webhook_events (event_id, organization_id, topic, created_at, body_json) VALUES (?, ?, ?, ?, ?)',
    );
    for (const [i, id] of E.entries())
      event.run(
        id,
        org,
        i % 2 === 0 ? 'printjob_succeeded' : 'printjob_failed',
        T - (40 - i) * MINUTE,
        body(i + 1),
      );
    const delivery = db.prepare(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, status, attempts, first_attempt_at, last_attempt_at,
         next_attempt_at, error, response_status_code, in_retry_all) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const row of V20_DELIVERIES) delivery.run(...row);
    db.prepare('INSERT INTO webhook_retry_runs (endpoint_id, created_at) VALUES (?, ?)').run(
      A,
      T - 3 * MINUTE,
    );
    expect(schemaVersion(db)).toBe(20);
    db.close();
  }

  /** The data directory (sealing keys) belongs with the database file, kept across a restart. */
  const start = (db: string, clock: ManualClock) =>
    bed.start({ clock, db, dataDir: `${db}.data`, perEndpoint: 1 });
  const stop = (h: Harness) => bed.stop(h);

  it('keeps every delivery with its event and state, and drops the events table and the old indexes', async () => {
    const path = join(bed.dir, 'rows.db');
    await v20Database(path, 'https://a.example/hook', 'https://b.example/hook');
    const db = openSqlite(path);
    db.pragma('foreign_keys = ON');
    expect(runMigrations(db, MIGRATIONS)).toEqual([21]);
    const rows = db
      .prepare(
        `SELECT endpoint_id, event_id, status, attempts, first_attempt_at, last_attempt_at, next_attempt_at, error,
           response_status_code, in_retry_all, topic, event_created_at, body_json
         FROM webhook_deliveries ORDER BY endpoint_id, event_id`,
      )
      .raw()
      .all();
    expect(rows).toEqual(
      V20_DELIVERIES.map((row) => {
        const n = E.indexOf(row[1]);
        return [
          ...row,
          n % 2 === 0 ? 'printjob_succeeded' : 'printjob_failed',
          T - (40 - n) * MINUTE,
          body(n + 1),
        ];
      }),
    );
    expect(db.prepare('SELECT endpoint_id, created_at FROM webhook_retry_runs').all()).toEqual([
      { endpoint_id: A, created_at: T - 3 * MINUTE },
    ]);
    const schema = db
      .prepare("SELECT type, name FROM sqlite_schema WHERE tbl_name LIKE 'webhook_%' ORDER BY type, name")
      .raw()
      .all();
    expect(schema).toEqual([
      ['index', 'sqlite_autoindex_webhook_endpoints_1'],
      ['index', 'sqlite_autoindex_webhook_retry_runs_1'],
      ['index', 'sqlite_autoindex_webhook_settings_1'],
      ['index', 'webhook_deliveries_key'],
      ['index', 'webhook_deliveries_retry_all'],
      ['index', 'webhook_deliveries_retry_due'],
      ['index', 'webhook_endpoints_org'],
      ['table', 'webhook_deliveries'],
      ['table', 'webhook_endpoints'],
      ['table', 'webhook_retry_runs'],
      ['table', 'webhook_settings'],
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('goes on with the retry-all run of the old database, delivers the queue, and keeps the retry that is not due', async () => {
    const a = await receiver(answer(204));
    const b = await receiver(answer(204));
    const path = join(bed.dir, 'run.db');
    await v20Database(path, a.url, b.url);
    const clock = new ManualClock(T);
    const h = await start(path, clock);
    await a.waitFor(4);
    await b.waitFor(1);
    await h.emulator.app.emulator.webhooks.drain();
    // The run's three events first, then the queued one; the retry due in 10 minutes waits.
    expect(a.requests.map((r) => r.body).sort()).toEqual([body(1), body(2), body(3), body(5)]);
    expect(
      a.requests
        .slice(0, 3)
        .map((r) => r.body)
        .sort(),
    ).toEqual([body(2), body(3), body(5)]);
    expect(b.requests.map((r) => r.body)).toEqual([body(5)]);
    const token = await passwordToken(h.baseUrl, 'webhooks');
    expect((await call(h.baseUrl, 'GET', `/webhooks/endpoints/${A}/events/retry`, token)).status).toBe(404);
    const events = await call(h.baseUrl, 'GET', `/webhooks/endpoints/${A}/events`, token);
    expect(events.body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [
        {
          created: new Date(T - 37 * MINUTE).toISOString(),
          event_id: E[3],
          topic: 'printjob_failed',
          endpoint: {
            status: 'pending',
            error: 'response_status_code',
            last_attempt: new Date(T - 2 * MINUTE).toISOString(),
            response_status_code: 500,
          },
        },
      ],
    });
    clock.advance(10 * MINUTE);
    await h.emulator.app.emulator.webhooks.drain();
    expect(a.requests.map((r) => r.body)).toHaveLength(5);
    expect(a.requests[4]!.body).toBe(body(4));
    expect(
      h.emulator.app.emulator.store.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get(),
    ).toEqual({
      n: 0,
    });
    await stop(h);
  });

  it('finishes the migrated retry-all run after a restart in its middle', async () => {
    let behaviour: Behaviour = (n) => (n === 0 ? { status: 204 } : 'stall');
    const a = await receiver((n) => behaviour(n));
    const b = await receiver(answer(204));
    const path = join(bed.dir, 'restart.db');
    await v20Database(path, a.url, b.url);
    const clock = new ManualClock(T);
    const first = await start(path, clock);
    await a.waitFor(2);
    await stop(first);
    const [delivered, cut] = a.requests.map((r) => r.body);
    const runLeft = [body(2), body(3), body(5)].filter((x) => x !== delivered);
    expect(runLeft).toHaveLength(2);
    expect(runLeft).toContain(cut);

    behaviour = answer(204);
    const second = await start(path, clock);
    await a.waitFor(5);
    await second.emulator.app.emulator.webhooks.drain();
    // The cut-off attempt is sent again (at least once); the delivered one is not.
    expect(
      a.requests
        .slice(2)
        .map((r) => r.body)
        .sort(),
    ).toEqual([...runLeft, body(1)].sort());
    const token = await passwordToken(second.baseUrl, 'webhooks');
    expect((await call(second.baseUrl, 'GET', `/webhooks/endpoints/${A}/events/retry`, token)).status).toBe(
      404,
    );
    const left = second.emulator.app.emulator.store.db
      .prepare('SELECT endpoint_id, event_id, status, in_retry_all FROM webhook_deliveries')
      .raw()
      .all();
    expect(left).toEqual([[A, E[3], 'pending', 0]]);
    await stop(second);
  });
});
