import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CHANNEL_CLOSE } from '../../src/protocol/connector-channel.js';
import {
  call,
  createPrinter,
  DEMO,
  type Harness,
  passwordToken,
  registration,
  startHarness,
} from './emulator-harness.js';

let h: Harness;
let admin: string;
const ids = { hub1: '', hub2: '', srv1: '' };

async function register(serial: string, type: 'TPHub' | 'Printserver', token = admin): Promise<string> {
  const res = await call(h.baseUrl, 'POST', '/connector/v1/register', token, {
    ...registration(serial, `Connector ${serial}`),
    type,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

function printer(name: string, connectorId: string): Promise<string> {
  return createPrinter(h.baseUrl, admin, connectorId, name);
}

const names = (body: { results: { name: string }[] }) => body.results.map((p) => p.name).sort();

beforeAll(async () => {
  h = await startHarness();
  admin = await passwordToken(h.baseUrl, 'printing printing.connectors');
  ids.hub1 = await register('HUB-1', 'TPHub');
  ids.hub2 = await register('HUB-2', 'TPHub');
  ids.srv1 = await register('SRV-1', 'Printserver');
  await printer('Hub printer', ids.hub1);
  await printer('Server printer', ids.srv1);
});
afterAll(async () => {
  await h.close();
});

describe('GET /printing/v1/connectors/', () => {
  it('lists the organization connectors in the paginated envelope', async () => {
    // Other parts (the pull-printing queue) may add a connector of their own: compare with the full list.
    const full = await call(h.baseUrl, 'GET', '/printing/v1/connectors/?limit=1000', admin);
    expect(full.status).toBe(200);
    const allIds = full.body.results.map((c: { id: string }) => c.id);
    expect(allIds).toEqual(expect.arrayContaining([ids.hub1, ids.hub2, ids.srv1]));
    expect(full.body.count).toBe(allIds.length);
    const res = await call(h.baseUrl, 'GET', '/printing/v1/connectors/?limit=2', admin);
    expect(res.body.results.map((c: { id: string }) => c.id)).toEqual(allIds.slice(0, 2));
    expect(res.body.results[0]).toMatchObject({ id: allIds[0], organization_id: expect.any(String) });
    const next = new URL(res.body.next);
    expect(next.searchParams.get('offset')).toBe('2');
    const rest = await call(h.baseUrl, 'GET', `${next.pathname}${next.search}`, admin);
    expect(rest.body.results.map((c: { id: string }) => c.id)).toEqual(allIds.slice(2, 4));
    expect(new URL(rest.body.previous).searchParams.get('offset')).toBe('0');
  });

  it('filters by type (any letter case) and status; refuses unknown values naming the parameter', async () => {
    const hubs = await call(h.baseUrl, 'GET', '/printing/v1/connectors/?type=TPHub', admin);
    expect(hubs.body.results.map((c: { id: string }) => c.id).sort()).toEqual([ids.hub1, ids.hub2].sort());
    const servers = await call(h.baseUrl, 'GET', '/printing/v1/connectors?type=printserver', admin);
    expect(servers.body).toMatchObject({ count: 1, results: [{ id: ids.srv1 }] });
    const online = await call(h.baseUrl, 'GET', '/printing/v1/connectors/?status=Online', admin);
    expect(online.body.results.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining([ids.hub1, ids.hub2, ids.srv1]),
    );
    expect(online.body.results.every((c: { status: string }) => c.status === 'Online')).toBe(true);
    const offline = await call(h.baseUrl, 'GET', '/printing/v1/connectors/?status=offline', admin);
    expect(offline.body.results.map((c: { id: string }) => c.id)).not.toContain(ids.hub1);
    const bad = await call(h.baseUrl, 'GET', '/printing/v1/connectors/?type=Toaster', admin);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      field: 'type',
      rule: 'must be one of TPHub, Printserver, Virtual, Embedded',
    });
    expect((await call(h.baseUrl, 'GET', '/printing/v1/connectors/?limit=0', admin)).body.field).toBe(
      'limit',
    );
  });

  it('GET one connector; 404 for an unknown id', async () => {
    const one = await call(h.baseUrl, 'GET', `/printing/v1/connectors/${ids.srv1}/`, admin);
    expect(one.body).toMatchObject({ id: ids.srv1, type: 'Printserver', status: 'Online' });
    const none = await call(
      h.baseUrl,
      'GET',
      '/printing/v1/connectors/00000000-0000-4000-8000-000000000000',
      admin,
    );
    expect(none.status).toBe(404);
  });

  it('401 without a token', async () => {
    expect((await call(h.baseUrl, 'GET', '/printing/v1/connectors/', undefined)).status).toBe(401);
  });
});

describe('GET /printing/v1/filter_values/connector/', () => {
  it('names the distinct status and type values of the connectors, sorted', async () => {
    const res = await call(h.baseUrl, 'GET', '/printing/v1/filter_values/connector/', admin);
    expect(res.status).toBe(200);
    const all = (await call(h.baseUrl, 'GET', '/printing/v1/connectors/?limit=1000', admin)).body.results as {
      status: string;
      type: string;
    }[];
    const distinct = (values: string[]) => [...new Set(values)].sort();
    expect(res.body).toEqual([
      { field_name: 'status', values: distinct(all.map((c) => c.status)) },
      { field_name: 'type', values: distinct(all.map((c) => c.type)) },
    ]);
    expect(res.body[1].values).toEqual(expect.arrayContaining(['Printserver', 'TPHub']));
  });
});

describe('which printers a token sees', () => {
  it('admin and user: the organization; X-Host-Id: that connector; a connector token: its own', async () => {
    const all = await call(h.baseUrl, 'GET', '/printing/v1/printers/', admin);
    expect(names(all.body)).toEqual(expect.arrayContaining(['Hub printer', 'Server printer']));
    const user = await passwordToken(h.baseUrl, 'printing', DEMO.user);
    expect(names((await call(h.baseUrl, 'GET', '/printing/v1/printers/', user)).body)).toEqual(
      names(all.body),
    );
    const host = await call(h.baseUrl, 'GET', '/printing/v1/printers/', admin, undefined, {
      'x-host-id': ids.srv1,
    });
    expect(names(host.body)).toEqual(['Server printer']);
    const mismatch = await call(
      h.baseUrl,
      'GET',
      `/printing/v1/printers/?connector_id=${ids.hub1}`,
      admin,
      undefined,
      {
        'x-host-id': ids.srv1,
      },
    );
    expect(mismatch.body).toMatchObject({ count: 0, results: [] });

    const device = await passwordToken(h.baseUrl, 'printing.connectors', DEMO.user);
    expect((await call(h.baseUrl, 'GET', '/printing/v1/printers/', device)).body).toMatchObject({
      count: 0,
      results: [],
    });
    const own = await register('ALICE-1', 'TPHub', device);
    await printer('Alice connector printer', own);
    const mine = await call(h.baseUrl, 'GET', '/printing/v1/printers/', device);
    expect(names(mine.body)).toEqual(['Alice connector printer']);
  });
});

describe('DELETE /printing/v1/connectors/<id>/', () => {
  it('needs the admin role', async () => {
    const user = await passwordToken(h.baseUrl, 'printing', DEMO.user);
    const res = await call(h.baseUrl, 'DELETE', `/printing/v1/connectors/${ids.hub2}/`, user);
    expect(res.status).toBe(403);
  });

  it('204: its printers go too and its open channel is closed with 4404', async () => {
    const doomed = await register('DOOMED-1', 'TPHub');
    const p1 = await printer('Doomed 1', doomed);
    const p2 = await printer('Doomed 2', doomed);
    const socket = new WebSocket(`${h.baseUrl.replace('http', 'ws')}/connector/v1/channel`, {
      headers: { authorization: `Bearer ${admin}`, 'x-host-id': doomed },
    });
    const hello = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type === 'hello') resolve();
      }),
    );
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await hello;

    const res = await call(h.baseUrl, 'DELETE', `/printing/v1/connectors/${doomed}/`, admin);
    expect(res.status).toBe(204);
    expect(await closed).toBe(CHANNEL_CLOSE.unknownConnector);
    for (const id of [p1, p2]) {
      expect((await call(h.baseUrl, 'GET', `/printing/v1/printers/${id}/`, admin)).status).toBe(404);
    }
    expect((await call(h.baseUrl, 'GET', `/printing/v1/connectors/${doomed}/`, admin)).status).toBe(404);
    expect((await call(h.baseUrl, 'DELETE', `/printing/v1/connectors/${doomed}/`, admin)).status).toBe(404);
    const left = await call(h.baseUrl, 'GET', '/printing/v1/connectors/', admin);
    expect(left.body.results.map((c: { id: string }) => c.id)).not.toContain(doomed);
  });
});
