/**
 * Outbox row ids derived from what identifies the row, so that none has to be stored under a
 * UNIQUE index: a name-based UUID (RFC 9562 version 5, SHA-1) of the record's key and seq in a
 * namespace of 16 random bytes drawn once per database (migration 9 keeps it in `meta`). The same
 * (key, seq) always gives the same id, across restarts and retries; a seq is never used twice for
 * a key (outbox.ts); and another connector, or this one after a new database, draws another
 * namespace, so the same job id seen there gives other ids (the cloud drops an event whose
 * event_id it has already seen).
 */
import { createHash } from 'node:crypto';
import { PermanentError } from '../lib/errors.js';
import type { AgentDatabase } from './agent-db.js';

/** The `meta` key of the database's namespace (32 hex digits). */
export const EVENT_ID_NAMESPACE_KEY = 'event_id_namespace';

/** The version 5 UUID of `name` in `namespace` (16 bytes), lower-case. */
export function nameBasedUuid(namespace: Uint8Array, name: string): string {
  if (namespace.length !== 16) throw new RangeError(`namespace: must be 16 bytes, got ${namespace.length}`);
  const bytes = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id of the outbox row of record `key` with `seq`, in the database's `namespace`. */
export function outboxRowId(namespace: Uint8Array, key: string, seq: number): string {
  // The seq's digits end at the first colon, so no two (key, seq) pairs give the same name.
  return nameBasedUuid(namespace, `${seq}:${key}`);
}

/** The database's namespace (`meta` EVENT_ID_NAMESPACE_KEY, written by migration 9) as 16 bytes. */
export function readRowIdNamespace(db: AgentDatabase): Buffer {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(EVENT_ID_NAMESPACE_KEY) as
    | { value: string }
    | undefined;
  if (!row || !/^[0-9a-f]{32}$/.test(row.value))
    throw new PermanentError(
      'database_unreadable',
      `agent database: meta ${EVENT_ID_NAMESPACE_KEY} must be 32 hex digits (migration 9)`,
    );
  return Buffer.from(row.value, 'hex');
}
