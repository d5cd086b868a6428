import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { nameBasedUuid, outboxRowId, readRowIdNamespace } from '../../../src/store/event-ids.js';
import { Outbox } from '../../../src/store/outbox.js';

// The outbox's shape since schema version 9: row ids derived from (key, seq) in the database's
// namespace, no UNIQUE index on them, a record's last seq from its pending rows or the floor the
// outbox_seq_floor trigger keeps as they leave.

describe('nameBasedUuid', () => {
  it('gives RFC 9562 version 5 UUIDs (the RFC namespace DNS and www.example.com)', () => {
    const dns = Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex');
    expect(nameBasedUuid(dns, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('names the namespace field and its rule for a namespace that is not 16 bytes', () => {
    expect(() => nameBasedUuid(Buffer.alloc(15), 'x')).toThrow(/namespace: must be 16 bytes, got 15/);
  });

  it('keeps (key, seq) pairs apart whose joined text would be alike', () => {
    const ns = Buffer.alloc(16, 7);
    expect(outboxRowId(ns, '1:a', 1)).not.toBe(outboxRowId(ns, 'a', 11));
    expect(outboxRowId(ns, 'a', 1)).toBe(outboxRowId(Buffer.alloc(16, 7), 'a', 1));
  });
});

describe('Outbox row ids and seqs (schema 9)', () => {
  let db: AgentDatabase;
  let outbox: Outbox;
  const namespaceOf = (d: AgentDatabase) =>
    Buffer.from(
      (d.prepare("SELECT value FROM meta WHERE key = 'event_id_namespace'").get() as { value: string }).value,
      'hex',
    );
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    outbox = new Outbox(db, new ManualClock(), { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
  });
  afterEach(() => db.close());

  it('derives each event id from its job and seq in the database namespace, stored with the row', () => {
    const a1 = outbox.add('a', { kind: 'received' });
    expect(a1.event_id).toBe(outboxRowId(namespaceOf(db), 'a', 1));
    expect(outbox.rowsOf('a')[0]?.rowId).toBe(a1.event_id);
    expect(outbox.pendingFor('a')[0]?.event.event_id).toBe(a1.event_id);
    // A new Outbox on the same database (a restart) gives the next event the id of its own (key, seq).
    const again = new Outbox(db, new ManualClock(), { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
    expect(again.add('a', { kind: 'downloading' }).event_id).toBe(outboxRowId(namespaceOf(db), 'a', 2));
  });

  it('gives the same job id other event ids in another database (another connector, a new install)', () => {
    const other = openAgentDatabase(':memory:');
    try {
      const there = new Outbox(other, new ManualClock(), {
        initialMs: 100,
        maxMs: 1000,
        factor: 2,
        jitter: 0,
      });
      expect(namespaceOf(other)).not.toEqual(namespaceOf(db));
      expect(there.add('a', { kind: 'received' }).event_id).not.toBe(
        outbox.add('a', { kind: 'received' }).event_id,
      );
    } finally {
      other.close();
    }
  });

  it('keeps no UNIQUE index on the row id', () => {
    const unique = db.prepare('SELECT name FROM pragma_index_list(\'outbox\') WHERE "unique" = 1').all() as {
      name: string;
    }[];
    const columns = unique.map((i) =>
      (db.prepare('SELECT name FROM pragma_index_info(?)').all(i.name) as { name: string }[]).map(
        (c) => c.name,
      ),
    );
    expect(columns).toEqual([['job_id', 'seq']]);
  });

  it('never numbers a seq twice for a record, whichever way its rows left', () => {
    const seqsAfter = (key: string, leave: () => void) => {
      outbox.add(key, { kind: 'received' });
      outbox.add(key, { kind: 'downloading' });
      outbox.add(key, { kind: 'printing' });
      leave();
      return outbox.add(key, { kind: 'completed' }).seq;
    };
    const ids = (key: string) => outbox.pendingFor(key).map((p) => p.id);
    // Delivered one by one in order, all at once, out of order, discarded, settled as a batch.
    expect(
      seqsAfter('a', () => {
        for (const id of ids('a')) outbox.delivered(id);
      }),
    ).toBe(4);
    expect(seqsAfter('b', () => outbox.deliveredMany(ids('b')))).toBe(4);
    expect(seqsAfter('c', () => outbox.deliveredMany(ids('c').reverse()))).toBe(4);
    expect(seqsAfter('d', () => outbox.discardJob('d'))).toBe(4);
    expect(
      seqsAfter('e', () => outbox.settleBatch({ delivered: ids('e'), failed: [], discardJobs: [] })),
    ).toBe(4);
    // The highest row gone first, a lower one still pending: the next seq still passes the highest.
    outbox.add('f', { kind: 'received' });
    outbox.add('f', { kind: 'printing' });
    outbox.delivered(ids('f')[1] as number);
    expect(outbox.add('f', { kind: 'completed' }).seq).toBe(3);
    // A local-job record numbers with its own key the same way.
    outbox.append('local-job', 'c1', () => ({ op: 'create' }));
    outbox.delivered(outbox.rowsOf('c1')[0]?.id as number);
    expect((outbox.append('local-job', 'c1', (seq) => ({ op: 'update', seq })) as { seq: number }).seq).toBe(
      2,
    );
  });

  it('writes a record floor only when its highest pending row leaves, not for each event', () => {
    const floors = () => db.prepare('SELECT job_id, last_seq FROM event_seq ORDER BY job_id').all();
    outbox.add('a', { kind: 'received' });
    outbox.add('a', { kind: 'downloading' });
    expect(floors()).toEqual([]);
    outbox.delivered(outbox.pendingFor('a')[0]?.id as number);
    expect(floors()).toEqual([]);
    outbox.delivered(outbox.pendingFor('a')[0]?.id as number);
    expect(floors()).toEqual([{ job_id: 'a', last_seq: 2 }]);
  });

  it('reads the namespace only when the whole stored value is 32 hex digits', () => {
    const stored = (
      db.prepare("SELECT value FROM meta WHERE key = 'event_id_namespace'").get() as {
        value: string;
      }
    ).value;
    expect(readRowIdNamespace(db)).toEqual(Buffer.from(stored, 'hex'));
    for (const value of [`x${stored}`, `${stored}x`, `${stored}0`, stored.slice(1), stored.toUpperCase()]) {
      db.prepare("UPDATE meta SET value = ? WHERE key = 'event_id_namespace'").run(value);
      expect(() => readRowIdNamespace(db), value).toThrow(/meta event_id_namespace must be 32 hex digits/);
    }
  });

  it('refuses to number rows on a database without its namespace, naming the key and the rule', () => {
    db.prepare("DELETE FROM meta WHERE key = 'event_id_namespace'").run();
    const fresh = new Outbox(db, new ManualClock(), { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
    expect(() => fresh.add('a', { kind: 'received' })).toThrow(
      /meta event_id_namespace must be 32 hex digits/,
    );
    expect(() => fresh.add('a', { kind: 'received' })).toThrow(
      expect.objectContaining({ name: 'PermanentError', code: 'database_unreadable' }),
    );
    expect(fresh.size()).toBe(0);
  });
});
