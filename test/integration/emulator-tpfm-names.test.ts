/**
 * How /TPFM/ matches what a device types or reads: printer names ignore ASCII case (also when
 * they pick the pull printer whose password is checked), job handles and user ids ignore case,
 * card numbers match exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJobListBody } from '../../src/protocol/tpfm-bodies.js';
import {
  ALICE_CARD,
  DEMO,
  holdJob,
  startTpfmHarness,
  type TpfmHarness,
  tpfm,
} from './emulator-tpfm-harness.js';

describe('/TPFM/ name matching', () => {
  let h: TpfmHarness;
  const alice = { user: ALICE_CARD };
  beforeAll(async () => {
    h = await startTpfmHarness();
  });
  afterAll(async () => h?.close());

  it('finds the printer named in another case', async () => {
    for (const name of [DEMO.printer.name.toUpperCase(), DEMO.printer.name.toLowerCase()]) {
      const res = await tpfm(h, 'GetJobList', { Printer: name }, alice);
      expect([res.status, res.code, res.headers['x-fmp-visible']]).toEqual([200, 0, '1']);
    }
  });

  it('prefers the exact spelling when two printer names differ only in case', () => {
    const { store } = h.emulator.app.emulator;
    const demo = store.printers.findById(h.demoPrinterId)!;
    const upper = demo.name.toUpperCase();
    expect(store.printers.findByNameIgnoringCase(demo.organizationId, upper)?.id).toBe(h.demoPrinterId);
    // A second printer whose name differs only in case, created after the demo printer.
    const row = store.db.prepare('SELECT * FROM printers WHERE id = ?').get(h.demoPrinterId) as Record<
      string,
      unknown
    >;
    const twin: Record<string, unknown> = {
      ...row,
      id: 'case-twin',
      name: upper,
      tp_id: Number(row['tp_id']) + 1000,
      created_at: Number(row['created_at']) + 1,
    };
    const columns = Object.keys(twin);
    store.db
      .prepare(`INSERT INTO printers (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
      .run(...Object.values(twin));
    expect(store.printers.findByNameIgnoringCase(demo.organizationId, upper)?.id).toBe('case-twin');
    expect(store.printers.findByNameIgnoringCase(demo.organizationId, demo.name)?.id).toBe(h.demoPrinterId);
    expect(store.printers.findByNameIgnoringCase(demo.organizationId, demo.name.toLowerCase())?.id).toBe(
      h.demoPrinterId,
    );
    store.db.prepare("DELETE FROM printers WHERE id = 'case-twin'").run();
  });

  it('matches card numbers exactly: another case is an unknown card', async () => {
    expect(ALICE_CARD).not.toBe(ALICE_CARD.toLowerCase());
    expect((await tpfm(h, 'GetJobList', {}, alice)).code).toBe(0);
    expect((await tpfm(h, 'GetJobList', {}, { user: ALICE_CARD.toLowerCase() })).status).toBe(401);
  });

  it('finds a held job by its handle in another case, and the user by id in another case', async () => {
    await holdJob(h, 'Case handle');
    const list = parseJobListBody((await tpfm(h, 'GetJobList', {}, alice)).body);
    const handle = list.find((j) => j.displayName === 'Case handle')!.fileName;
    const aliceId = h.emulator.app.emulator.store.users.findByCard(
      h.emulator.app.emulator.store.printers.findById(h.demoPrinterId)!.organizationId,
      ALICE_CARD,
    )!.id;
    const byId = { user: aliceId.toUpperCase() };
    expect((await tpfm(h, 'SetJobProperties', { Job: handle.toUpperCase(), PutOnHold: 1 }, byId)).code).toBe(
      0,
    );
    expect((await tpfm(h, 'DeleteJob', { Job: handle.toUpperCase() }, alice)).code).toBe(0);
    const after = parseJobListBody((await tpfm(h, 'GetJobList', {}, alice)).body);
    expect(after.map((j) => j.fileName)).not.toContain(handle);
  });
});
