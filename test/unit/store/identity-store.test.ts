import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { openAgentDatabase } from '../../../src/store/agent-db.js';
import { IdentityStore } from '../../../src/store/identity-store.js';

describe('IdentityStore', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function open(dir: string) {
    const db = openAgentDatabase(join(dir, 'agent.db'));
    return { db, store: new IdentityStore(db, new ManualClock()) };
  }

  it('generates the serial once and keeps ids and tp_ids across reopen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-'));
    dirs.push(dir);
    const first = open(dir);
    const serial = first.store.serial();
    first.store.setConnectorId('c-1');
    const a = first.store.printer('Office', 'ipp://a/ipp/print');
    const b = first.store.printer('Lab', 'ipp://b/ipp/print');
    first.store.saveCloudPrinter('Office', 'cloud-a', 'urn:uuid:1');
    first.db.close();

    const second = open(dir);
    expect(second.store.serial()).toBe(serial);
    expect(serial).toMatch(/^PrintRelay-/);
    expect(second.store.connectorId()).toBe('c-1');
    expect(second.store.printer('Office', 'ipp://moved/ipp/print')).toEqual({
      name: 'Office',
      cloudId: 'cloud-a',
      tpId: a.tpId,
      uuid: 'urn:uuid:1',
      uri: 'ipp://moved/ipp/print',
    });
    expect(second.store.printer('Lab', 'ipp://b/ipp/print').tpId).toBe(b.tpId);
    expect(a.tpId).not.toBe(b.tpId);
    second.store.forgetCloudIds();
    expect(second.store.connectorId()).toBeUndefined();
    expect(second.store.printers().map((p) => p.cloudId)).toEqual([undefined, undefined]);
    second.db.close();
  });

  it('uses a configured serial override', () => {
    const db = openAgentDatabase(':memory:');
    const store = new IdentityStore(db, new ManualClock());
    expect(store.serial('SN-1')).toBe('SN-1');
    expect(store.serial()).toBe('SN-1');
    db.close();
  });
});
