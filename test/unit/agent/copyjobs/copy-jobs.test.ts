import { afterEach, describe, expect, it } from 'vitest';
import { CopyJobs } from '../../../../src/agent/copyjobs/copy-jobs.js';
import { parseAgentConfig } from '../../../../src/config/load-config.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { Redactor } from '../../../../src/log/redaction.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';

const yaml = `cloud:
  url: http://127.0.0.1:9
  client_id: c
release_stations:
  - name: front
    reader: "socket://127.0.0.1:0"
    printer: P
    pull_url: http://127.0.0.1:9
    password: device-secret
    copy_jobs:
      sources: [snmp]
      snmp: { host: 127.0.0.1, version: "3", user: u, auth_key: auth-key-123, priv_key: priv-key-456 }
  - name: plain
    reader: "socket://127.0.0.1:0"
    printer: P
    pull_url: http://127.0.0.1:9
    password: device-secret
`;

describe('CopyJobs.stationCopies', () => {
  let db: AgentDatabase;
  afterEach(() => db.close());

  it('builds a tracker only for stations with copy_jobs and registers their SNMP keys with the redactor', async () => {
    db = openAgentDatabase(':memory:');
    const clock = new ManualClock();
    const config = parseAgentConfig(yaml, 'agent.yaml', { env: {} });
    const redactor = new Redactor();
    const copies = new CopyJobs({
      config,
      db,
      outbox: new Outbox(db, clock, { initialMs: 1, maxMs: 1, factor: 1, jitter: 0 }),
      clock,
      logger: silentLogger(),
      redactor,
    });
    const ui = { message: () => {} };
    const [front, plain] = config.release_stations;
    expect(copies.stationCopies(plain!, silentLogger(), ui)).toBeUndefined();
    const tracker = copies.stationCopies(front!, silentLogger(), ui);
    expect(tracker).toBeDefined();
    const scrubbed = redactor.scrubString('keys auth-key-123 and priv-key-456, community public');
    expect(scrubbed).not.toContain('auth-key-123');
    expect(scrubbed).not.toContain('priv-key-456');
    expect(scrubbed).toContain('community public');
    await tracker!.stop();
    await copies.stop();
  });

  it('ends, at start, the sessions an earlier run left open, and queues their final state', async () => {
    db = openAgentDatabase(':memory:');
    const clock = new ManualClock();
    const config = parseAgentConfig(yaml, 'agent.yaml', { env: {} });
    const outbox = new Outbox(db, clock, { initialMs: 1, maxMs: 1, factor: 1, jitter: 0 });
    const first = new CopyJobs({ config, db, outbox, clock, logger: silentLogger() });
    const open = first.store.open({
      station: 'front',
      printer: 'P',
      userId: 'u',
      source: 'snmp',
      fields: { TotalPrintedPages: 3 },
    });
    const done = first.store.open({
      station: 'front',
      printer: 'P',
      userId: 'u',
      source: 'snmp',
      fields: { TotalPrintedPages: 1 },
    });
    first.store.finish(done, 'Failed', {});
    const second = new CopyJobs({ config, db, outbox, clock, logger: silentLogger() });
    await second.start();
    await second.stop();
    expect(second.store.get(open)).toMatchObject({ status: 'Succeeded', endedAt: clock.now() });
    expect(second.store.get(done)?.status).toBe('Failed');
    expect(
      outbox
        .rowsOf(open)
        .map((r) => (r.body as { op: string; status?: string }).status ?? (r.body as { op: string }).op),
    ).toEqual(['create', 'Succeeded']);
  });
});
