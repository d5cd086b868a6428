import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './emulator-harness.js';
import {
  addGroup,
  addPrinter,
  assignmentBody,
  type GroupsRig,
  printAs,
  startGroupsRig,
} from './emulator-groups-support.js';

let rig: GroupsRig;
const api = (method: 'GET' | 'PATCH' | 'DELETE', path: string, token = rig.admin, body?: unknown) =>
  call(rig.h.baseUrl, method, path, token, body);
const names = (rows: { name: string }[]) => rows.map((p) => p.name);

beforeAll(async () => {
  rig = await startGroupsRig();
});
afterAll(async () => {
  await rig.close();
});

describe('/printing/v1/assignments', () => {
  it('PATCH adds groups and answers the printer element; GET lists and filters by group', async () => {
    const printer = await addPrinter(rig, 'Assigned One');
    const other = await addPrinter(rig, 'Assigned Two');
    const a = await addGroup(rig, 'Assign A');
    const b = await addGroup(rig, 'Assign B');
    const first = await api('PATCH', `/printing/v1/assignments/${printer}/`, rig.admin, {
      assignment: [{ groups: [{ group_id: a, force_chosen: true }] }],
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      printer_id: printer,
      printer_name: 'Assigned One',
      assignments: [
        {
          settings: null,
          groups: [{ group_id: a, group_name: 'Assign A', group_foreign_id: null, force_chosen: true }],
        },
      ],
    });
    const second = await api('PATCH', `/printing/v1/assignments/${printer}/`, rig.admin, assignmentBody(b));
    expect(second.body.assignments[0].groups.map((g: { group_id: string }) => g.group_id)).toEqual([a, b]);
    await api('PATCH', `/printing/v1/assignments/${other}/`, rig.admin, assignmentBody(b));

    const all = await api('GET', '/printing/v1/assignments');
    expect(all.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(all.body.results.map((e: { printer_id: string }) => e.printer_id)).toEqual([printer, other]);
    // Each listed element is the printer's own: its groups in assignment order, no other printer's.
    const groupIds = (e: { assignments: { groups: { group_id: string }[] }[] }) =>
      e.assignments[0]?.groups.map((g) => g.group_id);
    expect(all.body.results.map(groupIds)).toEqual([[a, b], [b]]);
    expect(all.body.results[0]).toEqual(second.body);
    expect(all.body.results[1].printer_name).toBe('Assigned Two');
    const ofA = await api('GET', `/printing/v1/assignments?group=${a}`);
    expect(ofA.body.results.map((e: { printer_id: string }) => e.printer_id)).toEqual([printer]);
    const paged = await api('GET', '/printing/v1/assignments?limit=1&offset=1');
    expect(paged.body.results).toHaveLength(1);
    expect(paged.body.previous).toContain('offset=0');
    expect((await api('GET', `/printing/v1/groups/${b}/`)).body.num_printers).toBe(2);

    expect(
      (await api('DELETE', `/printing/v1/assignments/${printer}/`, rig.admin, assignmentBody(a))).status,
    ).toBe(204);
    const after = await api('GET', `/printing/v1/assignments?group=${a}`);
    expect(after.body).toMatchObject({ count: 0, results: [] });
    await api('DELETE', `/printing/v1/assignments/${printer}/`, rig.admin, assignmentBody(b));
    await api('DELETE', `/printing/v1/assignments/${other}/`, rig.admin, assignmentBody(b));
    expect((await api('GET', '/printing/v1/assignments')).body.count).toBe(0);
  });

  it.each([
    ['assignment missing', {}, 'assignment'],
    ['groups not an array', { assignment: [{ groups: 'x' }] }, 'assignment[0].groups'],
    [
      'group id not a UUID',
      { assignment: [{ groups: [{ group_id: 'x' }] }] },
      'assignment[0].groups[0].group_id',
    ],
    [
      'unknown group',
      { assignment: [{ groups: [{ group_id: '00000000-0000-4000-8000-000000000000' }] }] },
      'assignment[0].groups[0].group_id',
    ],
    ['unknown field', { assignment: [], extra: 1 }, 'extra'],
  ])('PATCH: %s -> 400 naming the field', async (_n, body, field) => {
    const printer = await addPrinter(rig, `Bad body ${field} ${_n}`);
    const res = await api('PATCH', `/printing/v1/assignments/${printer}/`, rig.admin, body);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('400 for a group filter that is not a UUID; 403 non-admin; 404 other organization', async () => {
    expect((await api('GET', '/printing/v1/assignments?group=abc')).body.field).toBe('group');
    const printer = await addPrinter(rig, 'Guarded Assignment');
    const group = await addGroup(rig, 'Guarded Group');
    const path = `/printing/v1/assignments/${printer}/`;
    expect((await api('PATCH', path, rig.alice, assignmentBody(group))).status).toBe(403);
    expect((await api('DELETE', path, rig.alice, assignmentBody(group))).status).toBe(403);
    expect((await api('PATCH', path, rig.other, assignmentBody(group))).status).toBe(404);
    expect((await api('DELETE', path, rig.other, assignmentBody(group))).status).toBe(404);
    await api('PATCH', path, rig.admin, assignmentBody(group));
    expect((await api('GET', '/printing/v1/assignments', rig.other)).body.count).toBe(0);
    expect((await api('GET', `/printing/v1/assignments?group=${group}`, rig.other)).body.count).toBe(0);
    await api('DELETE', path, rig.admin, assignmentBody(group));
  });

  it('deleting a printer removes its assignments', async () => {
    const printer = await addPrinter(rig, 'Short Lived');
    const group = await addGroup(rig, 'Cascade Group');
    await api('PATCH', `/printing/v1/assignments/${printer}/`, rig.admin, assignmentBody(group));
    expect((await api('GET', `/printing/v1/groups/${group}/`)).body.num_printers).toBe(1);
    expect((await call(rig.h.baseUrl, 'DELETE', `/printing/v1/printers/${printer}/`, rig.admin)).status).toBe(
      204,
    );
    expect((await api('GET', `/printing/v1/assignments?group=${group}`)).body).toMatchObject({ count: 0 });
    expect((await api('GET', `/printing/v1/groups/${group}/`)).body.num_printers).toBe(0);
    expect(
      (await api('PATCH', `/printing/v1/assignments/${printer}/`, rig.admin, assignmentBody(group))).status,
    ).toBe(404);
  });
});

describe('who may use a printer', () => {
  let open: string;
  let members: string;
  let strangers: string;
  let group: string;

  beforeAll(async () => {
    open = await addPrinter(rig, 'Visible Unassigned');
    members = await addPrinter(rig, 'Visible Members');
    strangers = await addPrinter(rig, 'Visible Strangers');
    group = await addGroup(rig, 'Alice Team');
    const outsiders = await addGroup(rig, 'Outsiders');
    await api('PATCH', `/printing/v1/assignments/${members}/`, rig.admin, assignmentBody(group));
    await api('PATCH', `/printing/v1/assignments/${strangers}/`, rig.admin, assignmentBody(outsiders));
    await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.admin, { groups: [{ group_id: group }] });
  });

  it('GetPrinter and the printers list show alice the unassigned printers and those of her groups', async () => {
    const listed = names((await api('GET', '/sfapi/GetPrinter/', rig.alice)).body);
    expect(listed).toEqual(
      expect.arrayContaining(['Visible Unassigned', 'Visible Members', 'Pull Printing']),
    );
    expect(listed).not.toContain('Visible Strangers');
    const page = (await api('GET', '/printing/v1/printers/?limit=1000', rig.alice)).body;
    expect(names(page.results)).not.toContain('Visible Strangers');
    expect(page.count).toBe(page.results.length);
    const admin = names((await api('GET', '/sfapi/GetPrinter/', rig.admin)).body);
    expect(admin).toContain('Visible Strangers');
    const connector = await call(
      rig.h.baseUrl,
      'GET',
      '/printing/v1/printers/?limit=1000',
      rig.admin,
      undefined,
      {
        'x-host-id': rig.connectorId,
      },
    );
    expect(names(connector.body.results)).toContain('Visible Strangers');
  });

  it('GetPrinterProperties answers 404 for a printer alice may not use', async () => {
    expect((await api('GET', `/sfapi/GetPrinterProperties/?id=${strangers}`, rig.alice)).status).toBe(404);
    expect((await api('GET', `/sfapi/GetPrinterProperties/?id=${members}`, rig.alice)).status).toBe(200);
    const all = (await api('GET', '/sfapi/GetPrinterProperties/', rig.alice)).body;
    expect(all.map((p: { Id: string }) => p.Id)).not.toContain(strangers);
  });

  it('Print: alice prints to unassigned and member printers, not to the others; the admin prints anywhere', async () => {
    expect((await printAs(rig, rig.alice, open)).status).toBe(200);
    expect((await printAs(rig, rig.alice, members)).status).toBe(200);
    const refused = await printAs(rig, rig.alice, strangers);
    expect(refused).toMatchObject({ status: 400, body: { field: 'printerid' } });
    expect((await printAs(rig, rig.admin, strangers)).status).toBe(200);
  });

  it('leaving the group hides the printer; deleting the group frees it for everyone', async () => {
    await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.admin, { groups: [] });
    expect(names((await api('GET', '/sfapi/GetPrinter/', rig.alice)).body)).not.toContain('Visible Members');
    expect((await printAs(rig, rig.alice, members)).status).toBe(400);
    expect((await api('DELETE', `/printing/v1/groups/${group}/`)).status).toBe(204);
    expect(names((await api('GET', '/sfapi/GetPrinter/', rig.alice)).body)).toContain('Visible Members');
    expect((await printAs(rig, rig.alice, members)).status).toBe(200);
  });
});
