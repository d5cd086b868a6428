import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './emulator-harness.js';
import {
  addGroup,
  addPrinter,
  assignmentBody,
  type GroupsRig,
  startGroupsRig,
} from './emulator-groups-support.js';

let rig: GroupsRig;
const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, token = rig.admin, body?: unknown) =>
  call(rig.h.baseUrl, method, path, token, body);

beforeAll(async () => {
  rig = await startGroupsRig();
});
afterAll(async () => {
  await rig.close();
});

describe('/printing/v1/groups/', () => {
  it('creates a group with defaults, ignoring unknown fields, and reads it back', async () => {
    const orgId = rig.h.emulator.app.emulator.store.users.findById(rig.adminId)!.organizationId;
    const res = await api('POST', '/printing/v1/groups/', rig.admin, {
      name: 'Finance',
      organization_id: orgId,
      whatever: 1,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Finance',
      description: '',
      local_printing_enabled: false,
      myprinters_enabled: false,
      origin: { provider: 'local' },
      organization_id: orgId,
      num_members: 0,
      num_printers: 0,
    });
    expect((await api('GET', `/printing/v1/groups/${res.body.id}/`)).body).toEqual(res.body);
    const list = await api('GET', '/printing/v1/groups/?limit=1');
    expect(list.body).toMatchObject({ count: expect.any(Number), previous: null });
    expect(list.body.results).toHaveLength(1);
  });

  it.each([
    ['name missing', {}, 'name'],
    ['name empty', { name: '  ' }, 'name'],
    ['name too long', { name: 'n'.repeat(256) }, 'name'],
    ['flag not boolean', { name: 'x', myprinters_enabled: 'yes' }, 'myprinters_enabled'],
    ['origin without provider', { name: 'x', origin: {} }, 'origin'],
    [
      'another organization',
      { name: 'x', organization_id: '00000000-0000-4000-8000-000000000000' },
      'organization_id',
    ],
  ])('POST: %s -> 400 naming the field', async (_n, body, field) => {
    const res = await api('POST', '/printing/v1/groups/', rig.admin, body);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('PATCH needs name and description, rejects unknown fields, and changes the group', async () => {
    const id = await addGroup(rig, 'Patchable');
    const missing = await api('PATCH', `/printing/v1/groups/${id}/`, rig.admin, { name: 'P2' });
    expect(missing).toMatchObject({ status: 400, body: { field: 'description' } });
    const unknown = await api('PATCH', `/printing/v1/groups/${id}/`, rig.admin, {
      name: 'P2',
      description: 'd',
      colour: 'red',
    });
    expect(unknown).toMatchObject({ status: 400, body: { field: 'colour' } });
    const ok = await api('PATCH', `/printing/v1/groups/${id}/`, rig.admin, {
      id,
      name: 'P2',
      description: 'second floor',
      local_printing_enabled: true,
      origin: { provider: 'azure' },
      num_members: 99,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      name: 'P2',
      description: 'second floor',
      local_printing_enabled: true,
      myprinters_enabled: false,
      origin: { provider: 'azure' },
      num_members: 0,
    });
  });

  it('403 for a non-admin write, reads open to users; 404 for another organization', async () => {
    const id = await addGroup(rig, 'Guarded');
    expect((await api('POST', '/printing/v1/groups/', rig.alice, { name: 'x' })).status).toBe(403);
    expect(
      (await api('PATCH', `/printing/v1/groups/${id}/`, rig.alice, { name: 'x', description: '' })).status,
    ).toBe(403);
    expect((await api('DELETE', `/printing/v1/groups/${id}/`, rig.alice)).status).toBe(403);
    expect((await api('GET', `/printing/v1/groups/${id}/`, rig.alice)).status).toBe(200);
    for (const method of ['GET', 'DELETE'] as const) {
      expect((await api(method, `/printing/v1/groups/${id}/`, rig.other)).status).toBe(404);
    }
    expect(
      (await api('PATCH', `/printing/v1/groups/${id}/`, rig.other, { name: 'x', description: '' })).status,
    ).toBe(404);
    const theirs = await api('GET', '/printing/v1/groups/', rig.other);
    expect(theirs.body.results.map((g: { id: string }) => g.id)).not.toContain(id);
    expect((await call(rig.h.baseUrl, 'GET', '/printing/v1/groups/', undefined)).status).toBe(401);
  });

  it('DELETE removes the group with its memberships and assignments (204, then 404)', async () => {
    const id = await addGroup(rig, 'Doomed');
    const keep = await addGroup(rig, 'Kept');
    const printer = await addPrinter(rig, 'Doomed Printer');
    await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.admin, {
      groups: [{ group_id: id }, { group_id: keep }],
    });
    await api('PATCH', `/printing/v1/assignments/${printer}/`, rig.admin, assignmentBody(id, keep));
    expect((await api('GET', `/printing/v1/groups/${id}/`)).body).toMatchObject({
      num_members: 1,
      num_printers: 1,
    });
    expect((await api('DELETE', `/printing/v1/groups/${id}/`)).status).toBe(204);
    expect((await api('GET', `/printing/v1/groups/${id}/`)).status).toBe(404);
    expect((await api('GET', `/printing/v1/users/${rig.aliceId}/`)).body.groups).toEqual([
      { group_id: keep },
    ]);
    const element = (await api('GET', `/printing/v1/assignments?group=${keep}`)).body.results[0];
    expect(element.assignments[0].groups.map((g: { group_id: string }) => g.group_id)).toEqual([keep]);
    expect((await api('GET', `/printing/v1/assignments?group=${id}`)).body).toMatchObject({
      count: 0,
      results: [],
    });
    expect((await api('GET', `/printing/v1/groups/${keep}/`)).body).toMatchObject({
      num_members: 1,
      num_printers: 1,
    });
    await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.admin, { groups: [] });
  });
});

describe('/printing/v1/users/', () => {
  it('lists the organization users with their printing settings (admin)', async () => {
    const res = await api('GET', '/printing/v1/users/');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    const alice = res.body.results.find((u: { id: string }) => u.id === rig.aliceId);
    expect(alice).toEqual({
      id: rig.aliceId,
      local_printing_enabled: false,
      self_service_enabled: false,
      myprinters_enabled: false,
      pull_printing_enabled: true,
      groups: [],
    });
  });

  it('PATCH replaces the memberships in full and sets the switches', async () => {
    const a = await addGroup(rig, 'Members A');
    const b = await addGroup(rig, 'Members B');
    const path = `/printing/v1/users/${rig.aliceId}/`;
    const both = await api('PATCH', path, rig.admin, {
      groups: [{ group_id: a }, { group_id: b }],
      self_service_enabled: true,
    });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({
      self_service_enabled: true,
      groups: [{ group_id: a }, { group_id: b }],
    });
    const onlyB = await api('PATCH', path, rig.admin, { groups: [{ group_id: b }] });
    expect(onlyB.body).toMatchObject({ self_service_enabled: true, groups: [{ group_id: b }] });
    expect((await api('GET', `/printing/v1/groups/${a}/`)).body.num_members).toBe(0);
    expect((await api('GET', `/printing/v1/groups/${b}/`)).body.num_members).toBe(1);
    const none = await api('PATCH', path, rig.admin, { groups: [], pull_printing_enabled: false });
    expect(none.body).toMatchObject({ pull_printing_enabled: false, groups: [] });
    expect(rig.h.emulator.app.emulator.store.users.findById(rig.aliceId)!.pullPrintingEnabled).toBe(false);
    await api('PATCH', path, rig.admin, { groups: [], pull_printing_enabled: true });
  });

  it.each([
    ['groups missing', { self_service_enabled: true }, 'groups'],
    ['group id not a UUID', { groups: [{ group_id: 'x' }] }, 'groups[0].group_id'],
    [
      'unknown group',
      { groups: [{ group_id: '00000000-0000-4000-8000-000000000000' }] },
      'groups[0].group_id',
    ],
    ['switch not boolean', { groups: [], myprinters_enabled: 1 }, 'myprinters_enabled'],
    ['unknown field', { groups: [], roles: ['admin'] }, 'roles'],
  ])('PATCH: %s -> 400 naming the field', async (_n, body, field) => {
    const res = await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.admin, body);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it("400 naming groups[i].group_id for another organization's group", async () => {
    const theirs = await api('POST', '/printing/v1/groups/', rig.other, { name: 'Theirs' });
    expect(theirs.status).toBe(201);
    const mine = await addGroup(rig, 'Mine');
    const res = await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.admin, {
      groups: [{ group_id: mine }, { group_id: theirs.body.id }],
    });
    expect(res).toMatchObject({ status: 400, body: { field: 'groups[1].group_id' } });
    expect((await api('GET', `/printing/v1/users/${rig.aliceId}/`)).body.groups).toEqual([]);
  });

  it('a user reads only their own settings; writes need the admin role; other organization 404', async () => {
    const own = await api('GET', '/printing/v1/users/', rig.alice);
    expect(own.body).toMatchObject({ count: 1, results: [{ id: rig.aliceId }] });
    expect((await api('GET', `/printing/v1/users/${rig.aliceId}/`, rig.alice)).status).toBe(200);
    expect((await api('GET', `/printing/v1/users/${rig.adminId}/`, rig.alice)).status).toBe(403);
    expect((await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.alice, { groups: [] })).status).toBe(
      403,
    );
    expect((await api('GET', `/printing/v1/users/${rig.aliceId}/`, rig.other)).status).toBe(404);
    expect((await api('PATCH', `/printing/v1/users/${rig.aliceId}/`, rig.other, { groups: [] })).status).toBe(
      404,
    );
  });
});
