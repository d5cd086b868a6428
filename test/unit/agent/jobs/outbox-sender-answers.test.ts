/**
 * How OutboxSender.flush() reads the cloud's answers: which statuses acknowledge an event, the
 * reason recorded and logged for a refused one, a job gone for this connector, a whole batch
 * that failed, and how many batches go out at once. The cloud is a function the test writes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxSender, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { createLogger, type Logger } from '../../../../src/log/logger.js';
import type { JobEventBatchItem, JobEventItemResult } from '../../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { Outbox } from '../../../../src/store/outbox.js';

type Answer = Omit<JobEventItemResult, 'event_id'>;

describe('OutboxSender: the answers to a batch', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  let lines: Record<string, unknown>[];
  let logger: Logger;
  let posts: JobEventBatchItem[][];
  const flush = (sender: OutboxSender) => sender.flush(new AbortController().signal);

  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 8000, factor: 2, jitter: 0 });
    lines = [];
    posts = [];
    logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
  });
  afterEach(() => db.close());

  /** A cloud answering each event by `<job>:<seq>` (204 when not listed). */
  function answering(answers: Record<string, Answer>): PostEvents {
    return async (items) => {
      posts.push(items);
      return items.map(({ job_id, event }) => ({
        event_id: event.event_id,
        ...(answers[`${job_id}:${event.seq}`] ?? { status: 204 }),
      }));
    };
  }

  const logged = (msg: string) => lines.filter((line) => line['msg'] === msg);

  it('acknowledges 200 to 299 only; 199 and 300 are failed attempts', async () => {
    for (const job of ['s200', 's299', 's199', 's300']) outbox.add(job, { kind: 'received' });
    const sender = new OutboxSender(
      outbox,
      answering({
        's200:1': { status: 200 },
        's299:1': { status: 299 },
        's199:1': { status: 199, error: 'odd', message: 'informational' },
        's300:1': { status: 300, error: 'odd', message: 'redirect' },
      }),
      clock,
      logger,
    );
    expect(await flush(sender)).toBe(2);
    expect(outbox.pendingFor('s200')).toEqual([]);
    expect(outbox.pendingFor('s299')).toEqual([]);
    expect(outbox.rowsOf('s199')).toEqual([
      expect.objectContaining({ attempts: 1, lastError: '199 odd: informational' }),
    ]);
    expect(outbox.rowsOf('s300')).toEqual([
      expect.objectContaining({ attempts: 1, lastError: '300 odd: redirect' }),
    ]);
  });

  it('records a refusal without error or message as "<status> error:", and logs each refused event', async () => {
    outbox.add('bare', { kind: 'received' });
    const sender = new OutboxSender(outbox, answering({ 'bare:1': { status: 500 } }), clock, logger);
    await flush(sender);
    expect(outbox.rowsOf('bare')[0]?.lastError).toBe('500 error:');
    expect(logged('event refused')).toEqual([
      expect.objectContaining({ level: 'warn', job: 'bare', seq: 1, status: 500 }),
    ]);
  });

  it('logs the job, seq, status, error and message of a refused event', async () => {
    outbox.add('a', { kind: 'received' });
    const refusal = { status: 409, error: 'conflict', message: 'held by another connector' };
    await flush(new OutboxSender(outbox, answering({ 'a:1': refusal }), clock, logger));
    expect(logged('event refused')).toEqual([
      expect.objectContaining({
        job: 'a',
        seq: 1,
        status: 409,
        error: 'conflict',
        reason: 'held by another connector',
      }),
    ]);
  });

  it('counts every refused event of a job as an attempt; only a skip after a refusal waits uncounted', async () => {
    for (const kind of ['received', 'printing', 'completed'] as const) outbox.add('a', { kind });
    const sender = new OutboxSender(
      outbox,
      answering({
        'a:1': { status: 422, error: 'invalid_request', message: 'bad seq' },
        'a:2': { status: 409, error: 'conflict', message: 'also refused' },
        'a:3': { status: 409, error: 'skipped', message: 'an earlier event failed' },
      }),
      clock,
      logger,
    );
    await flush(sender);
    expect(outbox.rowsOf('a').map((r) => r.attempts)).toEqual([1, 1, 0]);
  });

  it('logs a job gone for this connector with its dropped events and the reason', async () => {
    outbox.add('gone', { kind: 'received' });
    outbox.add('gone', { kind: 'failed' });
    outbox.add('bare', { kind: 'received' });
    const sender = new OutboxSender(
      outbox,
      answering({
        'gone:1': { status: 404, error: 'not_found', message: 'job gone not found' },
        'gone:2': { status: 409, error: 'skipped', message: 'an earlier event failed' },
        'bare:1': { status: 410 },
      }),
      clock,
      logger,
    );
    await flush(sender);
    const msg = 'the cloud no longer knows this job for this connector; its undelivered events are dropped';
    expect(logged(msg)).toEqual([
      expect.objectContaining({ job: 'gone', droppedEvents: 2, reason: '404 not_found: job gone not found' }),
      expect.objectContaining({ job: 'bare', droppedEvents: 1, reason: '410 error:' }),
    ]);
  });

  it('logs a failed batch once with its events, its jobs and the error', async () => {
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'printing' });
    outbox.add('b', { kind: 'received' });
    const down: PostEvents = async () => {
      throw new RetryableError('network', 'ECONNREFUSED');
    };
    await flush(new OutboxSender(outbox, down, clock, logger));
    expect(logged('event delivery failed')).toEqual([
      expect.objectContaining({ level: 'warn', events: 3, jobs: 2, error: 'ECONNREFUSED' }),
    ]);
  });

  it('posts at most two batches at once, even when three are due', async () => {
    for (const job of ['a', 'b', 'c'])
      for (let i = 0; i < 100; i++) outbox.add(job, { kind: 'progress', pages_printed: i });
    let inFlight = 0;
    let most = 0;
    const slow: PostEvents = async (items, signal) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return answering({})(items, signal);
    };
    expect(await flush(new OutboxSender(outbox, slow, clock, logger))).toBe(300);
    expect(most).toBe(2);
    expect(posts.map((p) => p.length)).toEqual([100, 100, 100]);
  });

  it('stops after a round that delivered nothing, even when the refused events are due again at once', async () => {
    const noBackoff = new Outbox(db, clock, { initialMs: 0, maxMs: 0, factor: 2, jitter: 0 });
    noBackoff.add('a', { kind: 'received' });
    const sender = new OutboxSender(
      noBackoff,
      answering({ 'a:1': { status: 503, error: 'unavailable', message: 'try later' } }),
      clock,
      logger,
    );
    expect(await flush(sender)).toBe(0);
    expect(posts).toHaveLength(1);
  });
});
