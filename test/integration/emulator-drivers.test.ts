import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/app.js';
import { defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import { silentLogger } from '../../src/log/logger.js';
import { decodeBlobCapabilities } from '../../src/protocol/capability-merge.js';
import { call, type Harness, passwordToken, registration, startHarness } from './emulator-harness.js';

const CATALOG_DIR = fileURLToPath(new URL('../../drivers/printers/', import.meta.url));
const catalog = readdirSync(CATALOG_DIR).map(
  (f) =>
    JSON.parse(readFileSync(join(CATALOG_DIR, f), 'utf8')) as {
      id: string;
      name: string;
      vendor: string;
      os: string;
    },
);
const byName = (name: string) => catalog.find((d) => d.name === name)!.id;

let h: Harness;
let token: string;
let linux: string;
let windows: string;

async function create(body: Record<string, unknown>, host = linux) {
  return call(
    h.baseUrl,
    'POST',
    '/printing/v1/printers/',
    token,
    { status: 'Online', ...body },
    { 'x-host-id': host },
  );
}

beforeAll(async () => {
  h = await startHarness();
  token = await passwordToken(h.baseUrl, 'printing printing.connectors');
  linux = (await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('DRV-L'))).body.id;
  windows = (
    await call(h.baseUrl, 'POST', '/connector/v1/register', token, {
      ...registration('DRV-W', 'Windows server'),
      type: 'Printserver',
      os_type: 'Windows',
    })
  ).body.id;
});
afterAll(async () => {
  await h.close();
});

describe('the driver catalog', () => {
  it('holds at least 12 drivers of at least 5 vendors; GET vendors lists them sorted', async () => {
    expect(catalog.length).toBeGreaterThanOrEqual(12);
    const vendors = [...new Set(catalog.map((d) => d.vendor))].sort((a, b) => a.localeCompare(b));
    expect(vendors.length).toBeGreaterThanOrEqual(5);
    const res = await call(h.baseUrl, 'GET', '/printing/v1/drivers/vendors/', token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(vendors);
  });

  it('GET drivers?vendor= pages the Driver objects of that vendor (any letter case)', async () => {
    const hp = catalog.filter((d) => d.vendor === 'HP');
    const res = await call(h.baseUrl, 'GET', '/printing/v1/drivers/?vendor=hp&limit=2', token);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(hp.length);
    expect(res.body.results).toHaveLength(2);
    const first = res.body.results[0];
    expect(Object.keys(first).sort()).toEqual(
      [
        'arch',
        'blob_capabilities',
        'id',
        'name',
        'os',
        'printers_using_driver',
        'readable_name',
        'vendor',
      ].sort(),
    );
    expect(first).toMatchObject({ vendor: 'HP', arch: 'x64', printers_using_driver: 0 });
    expect(first.blob_capabilities).toMatchObject({ count: 5, options: expect.any(Number) });
    const caps = decodeBlobCapabilities(first.blob_capabilities.capabilities);
    expect(caps.papers.length).toBeGreaterThan(0);
    expect(caps.trays.filter((t) => t.default)).toHaveLength(1);
    expect(res.body.next).not.toBeNull();
    const unknown = await call(h.baseUrl, 'GET', '/printing/v1/drivers/?vendor=Acme', token);
    expect(unknown.body).toMatchObject({ count: 0, results: [] });
  });

  it('400 naming vendor when it is missing', async () => {
    const res = await call(h.baseUrl, 'GET', '/printing/v1/drivers/', token);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('vendor');
  });

  it('a bad catalog file stops the emulator from starting, naming file and field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drivers-'));
    try {
      await writeFile(
        join(dir, 'broken.json'),
        JSON.stringify({ id: 'x', name: 'b', vendor: 'V', os: 'BeOS' }),
      );
      const start = createEmulator({
        db: ':memory:',
        dataDir: dir,
        seed: defaultEmulatorSeed(),
        logger: silentLogger(),
        driverDir: dir,
      });
      await expect(start).rejects.toThrow(/broken\.json: id: must be a lower-case UUID.*broken\.json: os/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('automatic driver assignment', () => {
  it.each([
    [
      'the IEEE 1284 device id',
      { pnp_id: 'MFG:HP;MDL:LaserJet Pro M404dn;CMD:PCL,PDF;' },
      'hp-laserjet-pro-m404-hpcups',
    ],
    [
      'MANUFACTURER/MODEL keys',
      { pnp_id: 'MANUFACTURER:Brother;MODEL:HL-L2350DW series;' },
      'brother-hl-l2350dw-cups',
    ],
    [
      'vendor_name and model_name',
      { vendor_name: 'Kyocera', model_name: 'ECOSYS P3145dn' },
      'kyocera-ecosys-p3145dn-kpdl',
    ],
    ['make and model in model_name', { model_name: 'Xerox VersaLink C405' }, 'xerox-versalink-c405-ppd'],
    [
      'punctuation and case ignored',
      { vendor_name: 'epson', model_name: 'wf-c5790 series' },
      'epson-workforce-pro-wf-c5790-escpr',
    ],
  ])('ASSIGNED by %s', async (_n, body, driver) => {
    const res = await create({ name: `Auto ${driver} ${_n}`, ...body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      driver_id: byName(driver),
      manual_driver_id: null,
      auto_driver_assignment_state: 'ASSIGNED',
    });
  });

  it('picks the driver for the connector OS; NOT_FOUND when none fits', async () => {
    const win = await create(
      { name: 'Auto windows', vendor_name: 'HP', model_name: 'LaserJet Pro M404n' },
      windows,
    );
    expect(win.body).toMatchObject({
      driver_id: byName('hp-laserjet-pro-m404-pcl6'),
      auto_driver_assignment_state: 'ASSIGNED',
    });
    const none = await create({ name: 'Auto none', vendor_name: 'Acme', model_name: 'Printomatic 9000' });
    expect(none.body).toMatchObject({ driver_id: null, auto_driver_assignment_state: 'NOT_FOUND' });
    const winOnly = await create({ name: 'Auto linux without driver', model_name: 'Xerox B210' });
    expect(winOnly.body).toMatchObject({ driver_id: null, auto_driver_assignment_state: 'NOT_FOUND' });
  });

  it('runs again on update: a new model gets its driver', async () => {
    const created = (await create({ name: 'Auto update' })).body;
    expect(created.auto_driver_assignment_state).toBe('NOT_FOUND');
    const patched = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      pnp_id: 'MFG:Canon;MDL:iR-ADV C5535;',
    });
    expect(patched.body).toMatchObject({
      driver_id: byName('canon-imagerunner-advance-c5535-ufr2'),
      auto_driver_assignment_state: 'ASSIGNED',
    });
    const put = await call(h.baseUrl, 'PUT', `/printing/v1/printers/${created.id}/`, token, {
      name: 'Auto update',
      status: 'Online',
      connector_id: linux,
    });
    expect(put.body).toMatchObject({ driver_id: null, auto_driver_assignment_state: 'NOT_FOUND' });
  });

  it('a PUT echoing the object keeps the automatic assignment (driver_id is not made manual)', async () => {
    const created = (await create({ name: 'Auto echo', pnp_id: 'MFG:Brother;MDL:HL-L2350DW;' })).body;
    expect(created.auto_driver_assignment_state).toBe('ASSIGNED');
    const put = await call(h.baseUrl, 'PUT', `/printing/v1/printers/${created.id}/`, token, {
      ...created,
      location: 'Room 2',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      location: 'Room 2',
      driver_id: byName('brother-hl-l2350dw-cups'),
      manual_driver_id: null,
      auto_driver_assignment_state: 'ASSIGNED',
    });
  });

  it('without uploaded capabilities, the assigned driver gives the default blob capabilities', async () => {
    const created = (
      await create({ name: 'Auto caps', vendor_name: 'Canon', model_name: 'i-SENSYS MF445dw' })
    ).body;
    const blob = await call(
      h.baseUrl,
      'GET',
      `/printing/v1/printers/${created.id}/blob_capabilities/`,
      token,
    );
    expect(blob.body.trays.default.map((t: { name: string }) => t.name)).toEqual([
      'Auto',
      'Multi-purpose Tray',
      'Drawer 1',
    ]);
    expect(blob.body.papers.default[0]).toMatchObject({
      index: 9,
      name: 'A4',
      xsize: 2100,
      ysize: 2970,
      default: true,
    });
    expect(created.blob_capabilities).toMatchObject({ Count: 5 });
    const props = await call(h.baseUrl, 'GET', `/sfapi/GetPrinterProperties/?id=${created.id}`, token);
    expect(props.body[0].Trays.map((t: { Name: string }) => t.Name)).toEqual([
      'Auto',
      'Multi-purpose Tray',
      'Drawer 1',
    ]);
  });
});

describe('manual driver (PATCH driver_id)', () => {
  it('shows in manual_driver_id and driver_id with SKIPPED; null brings automatic assignment back', async () => {
    const created = (await create({ name: 'Manual', vendor_name: 'HP', model_name: 'LaserJet Pro M404dn' }))
      .body;
    const manual = byName('brother-mfc-l3770cdw-cups');
    const res = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      driver_id: manual,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      driver_id: manual,
      manual_driver_id: manual,
      auto_driver_assignment_state: 'SKIPPED',
    });
    const other = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      location: 'Hall',
    });
    expect(other.body).toMatchObject({ manual_driver_id: manual, auto_driver_assignment_state: 'SKIPPED' });
    const brother = await call(h.baseUrl, 'GET', '/printing/v1/drivers/?vendor=Brother', token);
    const row = brother.body.results.find((d: { id: string }) => d.id === manual);
    expect(row.printers_using_driver).toBe(1);
    const reset = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      driver_id: null,
    });
    expect(reset.body).toMatchObject({
      driver_id: byName('hp-laserjet-pro-m404-hpcups'),
      manual_driver_id: null,
      auto_driver_assignment_state: 'ASSIGNED',
    });
  });

  it('400 naming driver_id for a driver that is not in the catalog', async () => {
    const created = (await create({ name: 'Manual bad' })).body;
    const res = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      driver_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'driver_id', rule: expect.stringMatching(/catalog driver/) });
    const onCreate = await create({
      name: 'Manual on create',
      driver_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(onCreate.body.field).toBe('driver_id');
  });
});
