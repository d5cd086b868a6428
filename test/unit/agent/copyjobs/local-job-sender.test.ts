import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalJobSender, type LocalJobTransport } from '../../../../src/agent/copyjobs/local-job-sender.js';
import { TpfmCommandError } from '../../../../src/client/tpfm-client.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { CreateLocalJobParams, UpdateLocalJobParams } from '../../../../src/protocol/tpfm-local-job.js';
import { type AgentDatabase, openAgentDatabase } from '../../../../src/store/agent-db.js';
import { LocalJobStore } from '../../../../src/store/local-job-store.js';
import { Outbox } from '../../../../src/store/outbox.js';

/** Records requests; `next` decides the outcome of the next one. */
class FakeTransport implements LocalJobTransport {
  requests: string[] = [];
  next: (() => void)[] = [];
  private ids = 0;
  async create(station: string, user: string, params: CreateLocalJobParams, key: string): Promise<string> {
    this.requests.push(`create ${station} ${user} ${JSON.stringify(params)} key=${key.length}`);
    this.next.shift()?.();
    return `job-${++this.ids}`;
  }
  async update(station: string, user: string, params: UpdateLocalJobParams): Promise<void> {
    this.requests.push(`update ${station} ${user} ${JSON.stringify(params)}`);
    this.next.shift()?.();
  }
}

describe('LocalJobSender', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let outbox: Outbox;
  let store: LocalJobStore;
  let transport: FakeTransport;
  let sender: LocalJobSender;
  const keys: string[] = [];
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    outbox = new Outbox(db, clock, { initialMs: 1000, maxMs: 1000, factor: 2, jitter: 0 });
    store = new LocalJobStore(db, outbox, clock);
    transport = new FakeTransport();
    const create = transport.create.bind(transport);
    transport.create = (station, user, params, key) => {
      keys.push(key);
      return create(station, user, params, key);
    };
    sender = new LocalJobSender({ db, outbox, store, transport, clock, logger: silentLogger() });
    keys.length = 0;
  });
  afterEach(() => db.close());

  const open = (pages: number) =>
    store.open({
      station: 'front',
      printer: 'P',
      userId: 'card-1',
      source: 'snmp',
      fields: { TotalPrintedPages: pages },
    });

  it('resends an unanswered CreateLocalJob with the same Idempotency-Key after backoff', async () => {
    const id = open(2);
    transport.next.push(() => {
      throw new Error('socket hang up');
    });
    expect(await sender.flush()).toBe(0);
    expect(outbox.stats().lastError).toBe('socket hang up');
    expect(await sender.flush()).toBe(0); // not due yet
    clock.advance(1000);
    expect(await sender.flush()).toBe(1);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(store.get(id)).toMatchObject({
      cloudJobId: 'job-1',
      tracking: 'pending',
      deliveredStatus: 'Pending',
    });
    expect(outbox.size()).toBe(0);
  });

  it('takes 13 on a resent final update as done, and 13 otherwise as a closed job to continue', async () => {
    const a = open(2);
    await sender.flush();
    store.finish(a, 'Succeeded', { TotalPrintedPages: 3 });
    transport.next.push(() => {
      throw new Error('timeout');
    });
    transport.next.push(() => {
      throw new TpfmCommandError('UpdateLocalJob', 13, 'already ended');
    });
    await sender.flush();
    clock.advance(1000);
    expect(await sender.flush()).toBe(1);
    expect(store.get(a)).toMatchObject({ deliveredStatus: 'Succeeded', tracking: 'pending' });

    const b = open(5);
    await sender.flush();
    store.finish(b, 'Succeeded', { TotalPrintedPages: 8 });
    transport.next.push(() => {
      throw new TpfmCommandError('UpdateLocalJob', 13, 'closed after 24 hours');
    });
    expect(await sender.flush()).toBe(0);
    clock.advance(1000);
    expect(await sender.flush()).toBe(1);
    expect(store.get(b)).toMatchObject({
      cloudJobId: 'job-3',
      tracking: 'continued',
      deliveredStatus: 'Succeeded',
    });
    expect(transport.requests.slice(-3)).toEqual([
      'create front card-1 {"Printer":"P","Type":"Copy","TotalPrintedPages":5} key=36',
      'update front card-1 {"JobId":"job-2","TotalPrintedPages":8,"Status":"Succeeded"}',
      'create front card-1 {"Printer":"P","Type":"Copy","TotalPrintedPages":3,"Status":"Succeeded"} key=36',
    ]);
    expect(outbox.stats().depth).toBe(0);
  });

  it('takes 13 as done when the final update left before a crash that lost its answer', async () => {
    const a = open(2);
    await sender.flush();
    store.finish(a, 'Succeeded', { TotalPrintedPages: 3 });
    // The final update leaves and the agent dies before the answer: the request never settles
    // and no failure is recorded.
    const update = transport.update.bind(transport);
    transport.update = (station, user, params) => {
      void update(station, user, params);
      return new Promise<void>(() => {});
    };
    void sender.flush();
    await expect.poll(() => transport.requests.length).toBe(2);
    expect(outbox.rowsOf(a).map((r) => r.attempts)).toEqual([0]);
    // The next run resends it; the cloud, which stored it, answers 13.
    transport.update = update;
    const restarted = new LocalJobSender({ db, outbox, store, transport, clock, logger: silentLogger() });
    transport.next.push(() => {
      throw new TpfmCommandError('UpdateLocalJob', 13, 'already ended');
    });
    expect(await restarted.flush()).toBe(1);
    expect(store.get(a)).toMatchObject({
      cloudJobId: 'job-1',
      deliveredStatus: 'Succeeded',
      tracking: 'pending',
      delivered: { TotalPrintedPages: 3 },
    });
    expect(transport.requests).toEqual([
      'create front card-1 {"Printer":"P","Type":"Copy","TotalPrintedPages":2} key=36',
      'update front card-1 {"JobId":"job-1","TotalPrintedPages":3,"Status":"Succeeded"}',
      'update front card-1 {"JobId":"job-1","TotalPrintedPages":3,"Status":"Succeeded"}',
    ]);
    expect(outbox.size()).toBe(0);
  });
});
