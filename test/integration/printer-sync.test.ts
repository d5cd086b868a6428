/**
 * The printer sync against the REAL emulator and real IPP printers (built-in VirtualPrinters on
 * free ports): the first run creates printers with properties and capability defaults, a re-run
 * with nothing changed sends no write request at all (counted at the emulator), a fitted tray
 * goes as one PATCH of only the tray changes, renames and new
 * addresses keep the cloud id and tp_id, a silent printer goes Offline and stays, a failed
 * discovery deletes nothing, a vanished printer goes after the grace period, and never more
 * than the allowed share at once.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PrinterSyncClient } from '../../src/agent/printer-sync/printer-sync-client.js';
import type { CloudPrinter } from '../../src/agent/printer-sync/sync-types.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { freePort } from '../support/peers.js';
import { SettableDiscoverer, type SyncRig, startSyncRig } from '../support/sync-rig.js';
import { registryWithTrayChange } from '../support/tray-fitted-backend.js';

const HOUR = 3_600_000;

describe('printer sync with the emulator and virtual IPP printers', () => {
  let rig: SyncRig;
  const printers: VirtualPrinter[] = [];
  const uris: string[] = [];

  beforeAll(async () => {
    rig = await startSyncRig();
    for (let i = 0; i < 5; i++) {
      const printer = new VirtualPrinter({
        name: `Sync ${i}`,
        outputDir: join(rig.dir, `printed-${i}`),
        logger: silentLogger(),
      });
      printers.push(printer);
      uris.push((await printer.start()).uri);
    }
  }, 30_000);

  afterAll(async () => {
    for (const p of printers) await p.stop();
    await rig?.close();
  });

  beforeEach(async () => {
    // every test starts from no printers in the cloud and no remembered state
    for (const p of await rig.client.listPrinters(rig.connectorId))
      await rig.channel.deletePrinter(rig.connectorId, p.id);
    rig.store.save({ printers: [] });
    rig.counter.reset();
    rig.sent.reset();
  });

  const cloud = async (): Promise<CloudPrinter[]> => rig.client.listPrinters(rig.connectorId);
  const byName = async (name: string) => (await cloud()).find((p) => p.name === name);

  it('creates configured and discovered printers, then a re-sync with no change writes nothing', async () => {
    const lan = new SettableDiscoverer('dnssd');
    lan.set([{ name: 'Found 2', uri: uris[2] as string }]);
    const sync = rig.makeSync({
      printers: [{ name: 'Desk 1', uri: uris[1] as string, enabled: true }],
      discoverers: [lan],
    });
    const first = await sync.runNow();
    expect(first.failed).toEqual([]);
    const listed = await cloud();
    expect(listed.map((p) => p.name).sort()).toEqual(['Desk 1', 'Found 2']);
    expect(listed.every((p) => p.status === 'Online')).toBe(true);
    expect(new Set(listed.map((p) => p.tp_id)).size).toBe(2);
    const desk = listed.find((p) => p.name === 'Desk 1') as CloudPrinter;
    const blob = await rig.client.blobCapabilities(desk.id);
    expect(blob?.trays?.default).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: expect.any(String) })]),
    );
    expect(rig.counter.writes().map((w) => `${w.method} ${w.status}`)).not.toContain(
      expect.stringMatching(/ [45]\d\d$/),
    );
    expect(
      sync
        .printers()
        .map((p) => p.cloudId)
        .sort(),
    ).toEqual(listed.map((p) => p.id).sort());

    rig.counter.reset();
    const again = await sync.runNow(undefined, true);
    expect(again.writes).toEqual({});
    expect(rig.counter.writes()).toEqual([]);
  });

  it('a fitted tray reaches the cloud as ONE PATCH of properties carrying only the tray changes', async () => {
    const { registry, fitted } = registryWithTrayChange(uris[0] as string);
    const lan = new SettableDiscoverer('dnssd');
    lan.set([{ name: 'Fitted', uri: uris[0] as string }]);
    const sync = rig.makeSync({ discoverers: [lan], registry });
    expect((await sync.runNow()).writes).toEqual({ create: 1, upload: 1 });
    const id = ((await byName('Fitted')) as CloudPrinter).id;
    const propertiesPath = `/connector/v1/printers/${id}/properties`;
    const before = (await rig.client.blobCapabilities(id))?.trays?.default ?? [];
    expect(before.map((t) => t.name)).not.toContain('Tray 3');

    for (const backend of fitted()) backend.changed = true;
    rig.counter.reset();
    rig.sent.reset();
    const report = await sync.runNow(undefined, true);
    expect(report.failed).toEqual([]);
    expect(report.writes).toEqual({ 'upload-patch': 1 });
    expect(rig.counter.writes()).toEqual([{ method: 'PATCH', path: propertiesPath, status: 204 }]);
    const sent = rig.sent.writes();
    expect(sent.map((w) => `${w.method} ${w.path}`)).toEqual([`PATCH ${propertiesPath}`]);
    const body = sent[0]?.body as {
      properties: { Trays: unknown[] };
      blob_capabilities: { trays: unknown[] };
    };
    expect(Object.keys(body)).toEqual(['properties', 'blob_capabilities']);
    expect(Object.keys(body.properties)).toEqual(['Trays']);
    expect(Object.keys(body.blob_capabilities)).toEqual(['trays']);
    expect(body.properties.Trays).toContainEqual(expect.objectContaining({ Name: 'Tray 3' }));
    expect(body.blob_capabilities.trays).toContainEqual(expect.objectContaining({ name: 'Tray 3' }));

    // The cloud merged it: GetPrinterProperties and the blob trays show the new tray, the rest stayed.
    const [properties] = await rig.http.json<{ Trays: { Name: string }[]; Driver: string }[]>({
      method: 'GET',
      path: '/sfapi/GetPrinterProperties/',
      query: { id },
    });
    expect(properties?.Trays.map((t) => t.Name)).toContain('Tray 3');
    expect(properties?.Trays).toEqual(body.properties.Trays);
    const blob = await rig.client.blobCapabilities(id);
    expect(blob?.trays?.default).toEqual(body.blob_capabilities.trays);
    expect(blob?.papers?.default?.length).toBeGreaterThan(0);

    rig.counter.reset();
    expect((await sync.runNow(undefined, true)).writes).toEqual({});
    expect(rig.counter.writes()).toEqual([]);
  });

  it('keeps cloud id and tp_id across a rename and a new address, sending only the changed field', async () => {
    const lan = new SettableDiscoverer('dnssd');
    lan.set([{ name: 'Old Name', uri: uris[3] as string }]);
    const sync = rig.makeSync({ discoverers: [lan] });
    await sync.runNow();
    const before = (await byName('Old Name')) as CloudPrinter;
    rig.counter.reset();

    const moved = (uris[3] as string).replace('127.0.0.1', 'localhost');
    lan.set([{ name: 'New Name', uri: moved }]);
    await sync.runNow(undefined, true);
    const after = (await byName('New Name')) as CloudPrinter;
    expect(after.id).toBe(before.id);
    expect(after.tp_id).toBe(before.tp_id);
    expect(rig.counter.writes().map((w) => w.method)).toEqual(['PATCH']);
    expect(rig.store.load().printers.find((r) => r.cloudId === before.id)?.uri).toBe(moved);
  });

  it('keeps the cloud printer of a configured printer that comes back on another port with another uuid', async () => {
    const sync = rig.makeSync({ printers: [{ name: 'Moving', uri: uris[4] as string, enabled: true }] });
    await sync.runNow();
    const before = (await byName('Moving')) as CloudPrinter;
    const replacement = new VirtualPrinter({
      name: 'Moving again',
      outputDir: join(rig.dir, 'printed-moved'),
      logger: silentLogger(),
    });
    printers.push(replacement);
    const movedUri = (await replacement.start()).uri;
    rig.counter.reset();
    const moved = rig.makeSync({ printers: [{ name: 'Moving', uri: movedUri, enabled: true }] });
    const report = await moved.runNow();
    expect(report.failed).toEqual([]);
    expect(report.writes.create).toBeUndefined();
    expect((await cloud()).map((p) => [p.id, p.name, p.tp_id])).toEqual([
      [before.id, 'Moving', before.tp_id],
    ]);
    expect(moved.printers().map((p) => [p.cloudId, p.config.uri])).toEqual([[before.id, movedUri]]);
    expect(rig.store.load().printers).toEqual([
      expect.objectContaining({ cloudId: before.id, uri: movedUri, identity: 'config:moving' }),
    ]);
  });

  it('a name taken by a printer of another connector: not registered, an error logged saying how to fix it', async () => {
    const other = await rig.channel.register({
      serial_string: 'other-connector',
      type: 'Printserver',
      readable_name: 'Another connector',
      hostname: 'other',
      internal_ip: '127.0.0.1',
      external_ip: null,
      os_type: 'Linux',
      sw_version: '0.1.0',
      supported_formats: 'RAW,PDF',
    });
    const theirs = await rig.channel.createPrinter(other.id, {
      name: 'Shared Name',
      status: 'Online',
      tp_id: 1,
      location: '',
      vendor_name: '',
      model_name: '',
      pnp_id: '',
      supported_formats: ['PDF'],
    });
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => lines.push(line) },
    });
    const sync = rig.makeSync({
      printers: [{ name: 'Shared Name', uri: uris[0] as string, enabled: true }],
      logger,
    });
    const report = await sync.runNow();
    const problem =
      'printer name "Shared Name" is taken by a printer this connector does not own; rename this printer ' +
      '(printers[].name in the agent configuration) or rename or delete the other printer in the service; ' +
      'retried every sync';
    expect(report.failed).toEqual([{ tpId: expect.any(Number), kind: 'create', error: problem }]);
    expect(sync.problems().map((p) => p.error)).toEqual([problem]);
    expect(sync.printers()).toEqual([]);
    const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string; error?: string });
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'printer not registered: name taken', error: problem }),
    );
    await rig.channel.deletePrinter(other.id, theirs.id);
  });

  it("lists the connector's printers across pages", async () => {
    const lan = new SettableDiscoverer('dnssd');
    lan.set(uris.map((uri, i) => ({ name: `Paged ${i}`, uri })));
    await rig.makeSync({ discoverers: [lan] }).runNow();
    const paged = await new PrinterSyncClient(rig.http, 2).listPrinters(rig.connectorId);
    expect(paged.map((p) => p.name).sort()).toEqual(uris.map((_, i) => `Paged ${i}`));
  });

  it('takes over its cloud printers after a reinstall (state lost) without creating duplicates', async () => {
    const lan = new SettableDiscoverer('cups');
    lan.set([
      { name: 'Kept 0', uri: uris[0] as string },
      { name: 'Kept 1', uri: uris[1] as string },
    ]);
    await rig.makeSync({ discoverers: [lan] }).runNow();
    const before = await cloud();
    rig.store.save({ printers: [] });
    rig.counter.reset();
    const report = await rig.makeSync({ discoverers: [lan] }).runNow();
    expect(report.writes.create).toBeUndefined();
    const after = await cloud();
    expect(after.map((p) => [p.id, p.tp_id]).sort()).toEqual(before.map((p) => [p.id, p.tp_id]).sort());
    expect(
      rig.store
        .load()
        .printers.map((r) => r.cloudId)
        .sort(),
    ).toEqual(before.map((p) => p.id).sort());
  });

  it('sets a silent printer Offline without deleting it, and Online again when it answers', async () => {
    const port = await freePort();
    const silent = new VirtualPrinter({
      name: 'Silent',
      outputDir: join(rig.dir, 'silent'),
      logger: silentLogger(),
      port,
    });
    const uri = (await silent.start()).uri;
    const sync = rig.makeSync({ printers: [{ name: 'Silent', uri, enabled: true }] });
    try {
      await sync.runNow();
      await silent.stop();
      rig.clock.advance(48 * HOUR);
      rig.counter.reset();
      await sync.runNow();
      expect((await byName('Silent'))?.status).toBe('Offline');
      expect(rig.counter.writes().map((w) => w.method)).toEqual(['PATCH']);

      await silent.start();
      await sync.runNow();
      expect((await byName('Silent'))?.status).toBe('Online');
    } finally {
      await silent.stop();
    }
  });

  it('deletes nothing when discovery fails, and a vanished printer only after the grace period', async () => {
    const lan = new SettableDiscoverer('dnssd');
    lan.set([
      { name: 'Stays', uri: uris[0] as string },
      { name: 'Goes', uri: uris[4] as string },
    ]);
    const sync = rig.makeSync({ discoverers: [lan], sync: { grace_period_h: 24, max_delete_share: 1 } });
    await sync.runNow();

    lan.fail('CUPS is restarting');
    rig.clock.advance(100 * HOUR);
    const failed = await sync.runNow(undefined, true);
    expect(failed.discoveryOk).toBe(false);
    expect((await cloud()).map((p) => p.name).sort()).toEqual(['Goes', 'Stays']);

    lan.set([{ name: 'Stays', uri: uris[0] as string }]);
    await sync.runNow(undefined, true);
    expect((await byName('Goes'))?.status).toBe('Offline');
    rig.clock.advance(23 * HOUR);
    await sync.runNow(undefined, true);
    expect(await byName('Goes')).toBeDefined();
    rig.clock.advance(2 * HOUR);
    rig.counter.reset();
    await sync.runNow(undefined, true);
    expect((await cloud()).map((p) => p.name)).toEqual(['Stays']);
    expect(rig.counter.writes().map((w) => w.method)).toEqual(['DELETE']);
  });

  it('never deletes more than the allowed share of printers in one run', async () => {
    const lan = new SettableDiscoverer('dnssd');
    lan.set(uris.map((uri, i) => ({ name: `Many ${i}`, uri })));
    const sync = rig.makeSync({ discoverers: [lan], sync: { grace_period_h: 1, max_delete_share: 0.4 } });
    await sync.runNow();
    lan.set([]);
    await sync.runNow(undefined, true);
    rig.clock.advance(2 * HOUR);
    const report = await sync.runNow(undefined, true);
    expect(report.writes.delete).toBe(2);
    expect(report.notes.join(' ')).toContain('no mass delete');
    expect(await cloud()).toHaveLength(3);
    // the share is of the printers known at each run: 3 known now, so one goes
    await sync.runNow(undefined, true);
    expect(await cloud()).toHaveLength(2);
  });
});
