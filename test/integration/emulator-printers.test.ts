import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, DEMO, type Harness, passwordToken, registration, startHarness } from './emulator-harness.js';

let h: Harness;
let token: string;
let connectorId: string;
let secondConnectorId: string;
let otherOrgConnectorId: string;

const post = (body: unknown, host: string | null = connectorId) =>
  call(h.baseUrl, 'POST', '/printing/v1/printers/', token, body, host === null ? {} : { 'x-host-id': host });

beforeAll(async () => {
  h = await startHarness();
  token = await passwordToken(h.baseUrl, 'printing printing.connectors');
  connectorId = (await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('SER-1'))).body
    .id;
  secondConnectorId = (await call(h.baseUrl, 'POST', '/connector/v1/register', token, registration('SER-2')))
    .body.id;
  const other = await passwordToken(h.baseUrl, 'printing.connectors', DEMO.otherAdmin).catch(() => undefined);
  // The other organization has no client of its own in the demo seed: register there through the store.
  const otherOrg = h.emulator.app.emulator.store.organizations.findByName(DEMO.otherOrganization)!;
  const otherUser = h.emulator.app.emulator.store.users.findByEmail(DEMO.otherAdmin.email)!;
  otherOrgConnectorId = h.emulator.app.emulator.store.connectors.insert(
    otherOrg.id,
    registration('SER-X'),
    'Other',
    { userId: otherUser.id, clientId: other ? 'x' : 'none' },
    h.clock.now(),
  ).id;
});
afterAll(async () => {
  await h.close();
});

describe('POST /printing/v1/printers/', () => {
  it('creates a printer with an assigned tp_id and the connector formats', async () => {
    const res = await post({ name: 'Create 1', status: 'Online', vendor_name: 'HP', model_name: 'LaserJet' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Create 1',
      status: 'Online',
      connector_id: connectorId,
      supported_formats: ['RAW', 'PDF'],
      vendor_name: 'HP',
      model_name: 'LaserJet',
      driver_id: null,
    });
    expect(res.body.tp_id).toBeGreaterThanOrEqual(1);
    const next = await post({ name: 'Create 2', status: 'Offline' });
    expect(next.body.tp_id).toBe(res.body.tp_id + 1);
  });

  it.each([
    ['missing X-Host-Id', { name: 'a', status: 'Online' }, null, 400, 'X-Host-Id'],
    ['X-Host-Id not a UUID', { name: 'a', status: 'Online' }, 'abc', 400, 'X-Host-Id'],
  ])('%s -> %i', async (_n, body, host, status, field) => {
    const res = await post(body, host);
    expect(res.status).toBe(status);
    expect(res.body.field).toBe(field);
  });

  it('404 for an unknown connector or one of another organization', async () => {
    expect((await post({ name: 'a', status: 'Online' }, '00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
    expect((await post({ name: 'a', status: 'Online' }, otherOrgConnectorId)).status).toBe(404);
  });

  it.each([
    ['name missing', { status: 'Online' }, 'name', /required/],
    ['name empty', { name: ' ', status: 'Online' }, 'name', /non-empty/],
    ['name too long', { name: 'n'.repeat(256), status: 'Online' }, 'name', /255/],
    ['name not a string', { name: 5, status: 'Online' }, 'name', /string/],
    ['status missing', { name: 'x1' }, 'status', /required/],
    ['status unknown', { name: 'x2', status: 'Busy' }, 'status', /Online, Offline, Inproperly Configured/],
    ['tp_id zero', { name: 'x3', status: 'Online', tp_id: 0 }, 'tp_id', /1 to 2147483646/],
    ['tp_id too big', { name: 'x4', status: 'Online', tp_id: 2147483647 }, 'tp_id', /1 to 2147483646/],
    ['tp_id fraction', { name: 'x5', status: 'Online', tp_id: 1.5 }, 'tp_id', /integer/],
    ['tp_id text', { name: 'x6', status: 'Online', tp_id: 'abc' }, 'tp_id', /integer/],
    [
      'format EMF on input',
      { name: 'x7', status: 'Online', supported_formats: ['PDF', 'EMF'] },
      'supported_formats',
      /RAW, PDF, XPS/,
    ],
    [
      'formats not a list',
      { name: 'x8', status: 'Online', supported_formats: 5 },
      'supported_formats',
      /array/,
    ],
    [
      'vendor_name too long',
      { name: 'x9', status: 'Online', vendor_name: 'v'.repeat(256) },
      'vendor_name',
      /255/,
    ],
    [
      'model_name too long',
      { name: 'x10', status: 'Online', model_name: 'm'.repeat(256) },
      'model_name',
      /255/,
    ],
    ['unknown field', { name: 'x11', status: 'Online', colour: true }, 'colour', /unknown field/],
    [
      'connector_id on create differs from X-Host-Id',
      { name: 'x12', status: 'Online', connector_id: '00000000-0000-4000-8000-000000000001' },
      'connector_id',
      /X-Host-Id/,
    ],
    ['driver_id not a UUID', { name: 'x13', status: 'Online', driver_id: 'd' }, 'driver_id', /UUID/],
  ])('400 when %s, naming the field and rule', async (_n, body, field, rule) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    const match = res.body.errors.find((e: { field: string }) => e.field === field);
    expect(match.rule).toMatch(rule);
  });

  it('reports every broken rule at once', async () => {
    const res = await post({ name: '', status: 'x', tp_id: -1 });
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'name',
      'status',
      'tp_id',
    ]);
  });

  it('accepts the limits: 255-character names, tp_id 2147483646, formats in any case', async () => {
    const res = await post({
      name: 'L'.repeat(255),
      status: 'Inproperly Configured',
      tp_id: 2147483646,
      supported_formats: ['raw', 'xps'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tp_id: 2147483646,
      supported_formats: ['RAW', 'XPS'],
      status: 'Inproperly Configured',
    });
    const after = await post({ name: 'After the top', status: 'Online' });
    expect(after.status).toBe(201);
    expect(after.body.tp_id).toBeLessThan(2147483646);
  });

  it('keeps names unique and tp_id unique per connector', async () => {
    await post({ name: 'Unique', status: 'Online', tp_id: 500 });
    const dupName = await post({ name: 'Unique', status: 'Online' });
    expect(dupName.status).toBe(400);
    expect(dupName.body).toMatchObject({ field: 'name', rule: expect.stringMatching(/unique/) });
    const dupTp = await post({ name: 'Unique 2', status: 'Online', tp_id: 500 });
    expect(dupTp.body).toMatchObject({ field: 'tp_id', rule: 'must be unique per connector' });
    const otherConnector = await post({ name: 'Unique 3', status: 'Online', tp_id: 500 }, secondConnectorId);
    expect(otherConnector.status).toBe(201);
  });

  it('403 without the printing.connectors scope', async () => {
    const reader = await passwordToken(h.baseUrl, 'printing');
    const res = await call(
      h.baseUrl,
      'POST',
      '/printing/v1/printers/',
      reader,
      { name: 'r', status: 'Online' },
      { 'x-host-id': connectorId },
    );
    expect(res.status).toBe(403);
  });
});

describe('PUT, PATCH, GET, DELETE /printing/v1/printers/<id>/', () => {
  it('PUT replaces the whole object and requires name, status, connector_id', async () => {
    const created = (await post({ name: 'Put me', status: 'Online', location: 'Floor 1', vendor_name: 'HP' }))
      .body;
    for (const field of ['name', 'status', 'connector_id']) {
      const body: Record<string, unknown> = { name: 'Put me', status: 'Offline', connector_id: connectorId };
      delete body[field];
      const res = await call(h.baseUrl, 'PUT', `/printing/v1/printers/${created.id}/`, token, body);
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(field);
    }
    const res = await call(h.baseUrl, 'PUT', `/printing/v1/printers/${created.id}/`, token, {
      ...created,
      name: 'Put me',
      status: 'Offline',
      connector_id: connectorId,
      location: undefined,
      vendor_name: undefined,
    });
    expect(res.body).toMatchObject({ name: 'Put me' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'Offline',
      location: '',
      vendor_name: '',
      tp_id: created.tp_id,
    });
    const unknown = await call(h.baseUrl, 'PUT', `/printing/v1/printers/${created.id}`, token, {
      name: 'Put me',
      status: 'Online',
      connector_id: otherOrgConnectorId,
    });
    expect(unknown.status).toBe(404);
  });

  it('PATCH changes only what is sent; driver_id shows as manual_driver_id', async () => {
    const created = (await post({ name: 'Patch me', status: 'Online', vendor_name: 'Brother', tp_id: 77 }))
      .body;
    // A driver of the catalog (drivers/printers/): unknown driver ids are refused.
    const drivers = await call(h.baseUrl, 'GET', '/printing/v1/drivers/?vendor=Brother', token);
    const driver = drivers.body.results[0].id as string;
    const res = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      location: 'Hall',
      driver_id: driver,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Patch me',
      status: 'Online',
      vendor_name: 'Brother',
      tp_id: 77,
      location: 'Hall',
      manual_driver_id: driver,
    });
    const dup = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      name: 'Unique',
    });
    expect(dup.body.field).toBe('name');
    const bad = await call(h.baseUrl, 'PATCH', `/printing/v1/printers/${created.id}/`, token, {
      status: 'Sleeping',
    });
    expect(bad.body.field).toBe('status');
  });

  it('GET by id, 404 for unknown; DELETE answers 204 and the printer is gone', async () => {
    const created = (await post({ name: 'Delete me', status: 'Online' })).body;
    const got = await call(h.baseUrl, 'GET', `/printing/v1/printers/${created.id}`, token);
    expect(got.body.name).toBe('Delete me');
    const del = await call(h.baseUrl, 'DELETE', `/printing/v1/printers/${created.id}/`, token);
    expect(del.status).toBe(204);
    expect((await call(h.baseUrl, 'GET', `/printing/v1/printers/${created.id}`, token)).status).toBe(404);
    expect((await call(h.baseUrl, 'DELETE', `/printing/v1/printers/${created.id}/`, token)).status).toBe(404);
  });

  it('lists in the paginated envelope with next/previous links and a connector_id filter', async () => {
    for (let i = 0; i < 3; i++) await post({ name: `Paged ${i}`, status: 'Online' }, secondConnectorId);
    const filtered = await call(
      h.baseUrl,
      'GET',
      `/printing/v1/printers/?connector_id=${secondConnectorId}&limit=2`,
      token,
    );
    expect(filtered.status).toBe(200);
    expect(filtered.body.count).toBe(4);
    expect(filtered.body.results).toHaveLength(2);
    expect(filtered.body.previous).toBeNull();
    const next = new URL(filtered.body.next);
    expect(next.searchParams.get('offset')).toBe('2');
    expect(next.searchParams.get('limit')).toBe('2');
    expect(next.searchParams.get('connector_id')).toBe(secondConnectorId);
    const second = await call(h.baseUrl, 'GET', `${next.pathname}${next.search}`, token);
    expect(second.body.results).toHaveLength(2);
    expect(second.body.next).toBeNull();
    expect(new URL(second.body.previous).searchParams.get('offset')).toBe('0');
    const all = await call(h.baseUrl, 'GET', '/printing/v1/printers', token);
    expect(
      all.body.results
        .filter((p: { name: string }) => p.name !== 'Pull Printing')
        .every((p: { connector_id: string }) => [connectorId, secondConnectorId].includes(p.connector_id)),
    ).toBe(true);
    expect((await call(h.baseUrl, 'GET', '/printing/v1/printers/?limit=0', token)).body.field).toBe('limit');
    expect((await call(h.baseUrl, 'GET', '/printing/v1/printers/?offset=-1', token)).body.field).toBe(
      'offset',
    );
    expect((await call(h.baseUrl, 'GET', '/printing/v1/printers/?connector_id=x', token)).body.field).toBe(
      'connector_id',
    );
  });
});
