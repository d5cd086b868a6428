import { afterEach, describe, expect, it } from 'vitest';
import type { SyncState } from '../../../src/agent/printer-sync/sync-types.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import { IdentityStore } from '../../../src/store/identity-store.js';
import { SyncStateStore } from '../../../src/store/sync-state-store.js';

describe('SyncStateStore', () => {
  let db: AgentDatabase;
  const clock = new ManualClock();
  afterEach(() => db?.close());

  const state: SyncState = {
    printers: [
      {
        cloudId: 'c-1',
        tpId: 1,
        name: 'A',
        uri: 'ipp://a/',
        uuid: 'urn:uuid:a',
        deviceId: 'MFG:X;',
        propertyHashes: { Trays: 'p1', Default: 'p2' },
        capabilityHashes: { trays: 't1', colors: 'c1' },
      },
      { tpId: 7, name: 'B', uri: 'cups://B', capabilityHashes: {}, firstMissingAt: 1234 },
    ],
  };

  it('saves and loads the whole state, replacing what was there', () => {
    db = openAgentDatabase(':memory:');
    const store = new SyncStateStore(db, clock);
    store.save(state);
    expect(store.load()).toEqual(state);
    store.save({ printers: [state.printers[1] as SyncState['printers'][number]] });
    expect(store.load().printers.map((r) => r.tpId)).toEqual([7]);
  });

  it('starts from the identity table of the start-time registration (tp_id and cloud id kept)', () => {
    db = openAgentDatabase(':memory:');
    const identity = new IdentityStore(db, clock);
    identity.printer('Old', 'ipp://old/');
    identity.saveCloudPrinter('Old', 'cloud-old', 'urn:uuid:old');
    expect(new SyncStateStore(db, clock).load()).toEqual({
      printers: [
        {
          cloudId: 'cloud-old',
          tpId: 1,
          name: 'Old',
          uri: 'ipp://old/',
          uuid: 'urn:uuid:old',
          capabilityHashes: {},
        },
      ],
    });
  });

  it('forgets cloud ids and upload hashes but keeps tp_ids and identity facts', () => {
    db = openAgentDatabase(':memory:');
    const store = new SyncStateStore(db, clock);
    store.save(state);
    store.forgetCloudIds();
    const [a] = store.load().printers;
    expect(a).toEqual({
      tpId: 1,
      name: 'A',
      uri: 'ipp://a/',
      uuid: 'urn:uuid:a',
      deviceId: 'MFG:X;',
      capabilityHashes: {},
    });
  });

  it('drops the single properties hash of an older agent, so that printer is uploaded whole once', () => {
    db = openAgentDatabase(':memory:');
    const old = {
      tpId: 3,
      name: 'C',
      uri: 'ipp://c/',
      propertiesHash: 'all',
      capabilityHashes: { trays: 't' },
    };
    db.prepare(
      'INSERT INTO printer_sync (tp_id, cloud_id, uuid, record_json, updated_at) VALUES (?, ?, ?, ?, ?)',
    ).run(3, null, null, JSON.stringify(old), 0);
    expect(new SyncStateStore(db, clock).load().printers).toEqual([
      { tpId: 3, name: 'C', uri: 'ipp://c/', capabilityHashes: { trays: 't' } },
    ]);
  });
});
