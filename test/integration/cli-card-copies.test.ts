/**
 * `printrelay card copies` as a process: the copy jobs of an agent data directory, newest first,
 * cards masked, with how far the cloud has each; a wrong directory or limit is a clear error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { LocalJobStore } from '../../src/store/local-job-store.js';
import { Outbox } from '../../src/store/outbox.js';
import { runCli } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'card-copies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('printrelay card copies', () => {
  it('lists recorded copy jobs with masked cards and their delivery', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 23, 9, 0, 0));
    const db = openAgentDatabase(join(dir, 'agent.db'));
    const store = new LocalJobStore(
      db,
      new Outbox(db, clock, { initialMs: 1, maxMs: 1, factor: 1, jitter: 0 }),
      clock,
    );
    const a = store.open({
      station: 'front',
      printer: 'P',
      userId: '04A1B2C3D4',
      source: 'snmp',
      fields: { TotalPrintedPages: 4, TotalPrintedColorPages: 1 },
    });
    store.finish(a, 'Succeeded', {});
    store.delivered(a, { cloudJobId: 'j1', delivered: {}, deliveredStatus: 'Succeeded', tracking: 'single' });
    clock.advance(60_000);
    store.open({
      station: 'back',
      printer: 'P',
      userId: '99887766',
      source: 'http',
      fields: { TotalPrintedPages: 2 },
    });
    db.close();

    const all = await runCli(['card', 'copies', '--data-dir', dir]);
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toEqual([
      'started               station  card        pages  colour  state      cloud',
      '2026-11-23T09:01:00Z  back     ******66    2      -       Pending    queued',
      '2026-11-23T09:00:00Z  front    ********D4  4      1       Succeeded  sent (single request, Succeeded)',
    ]);
    const json = await runCli(['card', 'copies', '--data-dir', dir, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        startedAt: '2026-11-23T09:01:00.000Z',
        endedAt: null,
        station: 'back',
        printer: 'P',
        card: '******66',
        source: 'http',
        pages: 2,
        colourPages: null,
        state: 'Pending',
        cloud: { state: 'queued' },
      },
      {
        startedAt: '2026-11-23T09:00:00.000Z',
        endedAt: '2026-11-23T09:00:00.000Z',
        station: 'front',
        printer: 'P',
        card: '********D4',
        source: 'snmp',
        pages: 4,
        colourPages: 1,
        state: 'Succeeded',
        cloud: { state: 'sent', jobId: 'j1', tracking: 'single', status: 'Succeeded' },
      },
    ]);
    expect(json.stdout).not.toContain('04A1B2C3D4');
    const one = await runCli(['card', 'copies', '--data-dir', dir, '--card', '99887766', '--limit', '5']);
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(2);
    const missing = await runCli(['card', 'copies', '--data-dir', join(dir, 'nope')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`${join(dir, 'nope', 'agent.db')}: no agent database here`);
    const limit = await runCli(['card', 'copies', '--data-dir', dir, '--limit', '0']);
    expect(limit.stderr).toContain('--limit: must be an integer from 1 to 10000');
  });
});
