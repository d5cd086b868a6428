/**
 * Admin overrides flow back to the printer: the sync registers a real IPP printer (a built-in
 * VirtualPrinter) with its capability defaults, an admin customizes its capabilities through the
 * REAL emulator's admin API (a custom tray name, a disabled tray, papers overridden, color off),
 * and TicketOverrides turns job tickets into what the admin allows — the same adjusted ticket
 * the job runner hands to the backend.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketOverrides } from '../../src/agent/jobs/ticket-overrides.js';
import { silentLogger } from '../../src/log/logger.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { type SyncRig, startSyncRig } from '../support/sync-rig.js';

describe('admin capability overrides applied to tickets', () => {
  let rig: SyncRig;
  let virtual: VirtualPrinter;
  let printerId: string;

  beforeAll(async () => {
    rig = await startSyncRig('overrides-connector');
    virtual = new VirtualPrinter({
      name: 'Overrides',
      outputDir: join(rig.dir, 'printed'),
      logger: silentLogger(),
    });
    const { uri } = await virtual.start();
    const sync = rig.makeSync({ printers: [{ name: 'Overrides', uri, enabled: true }] });
    const report = await sync.runNow();
    expect(report.failed).toEqual([]);
    printerId = sync.printers()[0]?.cloudId as string;
  }, 30_000);

  afterAll(async () => {
    await virtual?.stop();
    await rig?.close();
  });

  const overrides = () =>
    new TicketOverrides({ client: rig.client, clock: rig.clock, logger: silentLogger() });

  it('leaves a ticket alone while nothing is customized', async () => {
    const ticket = { copies: 1, color: true, tray: { name: 'Tray 2' }, paper: { id: 9, name: 'A4' } };
    const result = await overrides().apply(printerId, ticket);
    expect(result.warnings).toEqual([]);
    expect(result.ticket).toMatchObject({ copies: 1, color: true, paper: { id: 9 } });
    expect(result.ticket.tray?.name).toBe('Tray 2');
  });

  it('applies custom tray names, disabled trays, overridden papers and color switched off', async () => {
    const defaults = await rig.client.capabilities(printerId);
    const tray1 = defaults?.trays.find((t) => t.original_name === 'Tray 1');
    const tray2 = defaults?.trays.find((t) => t.original_name === 'Tray 2');
    expect(tray1 && tray2).toBeTruthy();
    await rig.http.json({
      method: 'PATCH',
      path: `/printing/v1/printers/${printerId}/capabilities/`,
      json: {
        color_supported: false,
        trays: [
          { index: tray1?.index, name: 'Letterhead', enabled: true },
          { index: tray2?.index, name: null, enabled: false },
        ],
      },
    });
    const blob = await rig.client.blobCapabilities(printerId);
    const letter = blob?.papers?.default?.find((p) => p.name === 'Letter');
    expect(letter).toBeDefined();
    await rig.http.json({
      method: 'PATCH',
      path: `/printing/v1/printers/${printerId}/blob_capabilities/papers/`,
      json: { custom: [{ ...letter, default: true }] },
    });

    const apply = overrides().apply;
    const named = await apply(printerId, { copies: 1, tray: { name: 'Letterhead' } });
    expect(named).toEqual({
      ticket: { copies: 1, tray: { index: tray1?.index, name: 'Tray 1' } },
      warnings: [],
    });

    const disabled = await apply(printerId, { copies: 1, tray: { index: tray2?.index } });
    expect(disabled.ticket.tray?.name).not.toBe('Tray 2');
    expect(disabled.warnings).toEqual([expect.stringContaining('disabled by the admin')]);

    const paperAndColor = await apply(printerId, { copies: 3, color: true, paper: { id: 9, name: 'A4' } });
    expect(paperAndColor.ticket).toEqual({ copies: 3, color: false, paper: { id: 1, name: 'Letter' } });
    expect(paperAndColor.warnings).toHaveLength(2);
  });
});
