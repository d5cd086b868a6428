/**
 * The answer to one event batch is recorded in one SQLite commit (docs/agent-jobs.md, "Commits
 * per job"): the acknowledged events leave with one statement, and the refused events' failed
 * attempts and a gone job's discarded events share that commit.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { EVENT_SKIPPED, type JobEventItemResult } from '../../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';
import { type CommitCounter, watchCommits } from '../../../support/sqlite-commits.js';

describe('OutboxSender: one commit per batch answer', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  let commits: CommitCounter;

  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
  });
  afterEach(() => {
    commits.restore();
    db.close();
  });

  /** A cloud answering each event by `<job>:<seq>` with [status, error] (204 when not listed). */
  const answering =
    (answers: Record<string, [number, string]>): PostEvents =>
    async (items) =>
      items.map((item): JobEventItemResult => {
        const [status, error] = answers[`${item.job_id}:${item.event.seq}`] ?? [204, ''];
        return status === 204
          ? { event_id: item.event.event_id, status }
          : { event_id: item.event.event_id, status, error, message: 'by the test' };
      });

  // One DELETE per acknowledged row, all in one commit (Outbox.deliveredMany: a json_each list of
  // the ids in one statement cost more in the running agent, docs/performance.md Round 7).
  it('removes every acknowledged event of a batch in one commit', async () => {
    for (const job of ['a', 'b', 'c']) {
      outbox.add(job, { kind: 'received' });
      outbox.add(job, { kind: 'printing' });
    }
    commits = watchCommits(db);
    const sender = new OutboxSender(outbox, answering({}), clock, silentLogger());
    expect(await sender.flush(new AbortController().signal)).toBe(6);
    expect(outbox.size()).toBe(0);
    expect({ commits: commits.commits, writes: commits.writes }).toEqual({ commits: 1, writes: 6 });
  });

  it('records acknowledged, refused and gone in the same commit', async () => {
    outbox.add('ok', { kind: 'received' });
    outbox.add('ok', { kind: 'completed' });
    outbox.add('refused', { kind: 'received' });
    outbox.add('gone', { kind: 'received' });
    outbox.add('gone', { kind: 'printing' });
    commits = watchCommits(db);
    const sender = new OutboxSender(
      outbox,
      answering({
        'refused:1': [400, 'refused'],
        'gone:1': [404, 'not_found'],
        'gone:2': [409, EVENT_SKIPPED],
      }),
      clock,
      silentLogger(),
    );
    expect(await sender.flush(new AbortController().signal)).toBe(2);
    expect(commits.commits).toBe(1);
    // The refused event stays with one failed attempt; the gone job's events are discarded.
    expect(outbox.pendingFor('ok')).toEqual([]);
    expect(outbox.pendingFor('gone')).toEqual([]);
    expect(outbox.pendingFor('refused')).toMatchObject([{ attempts: 1, event: { seq: 1 } }]);
    expect(outbox.stats().lastError).toBe('400 refused: by the test');
  });
});
