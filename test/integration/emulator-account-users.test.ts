/**
 * /v1/users/ over HTTP with real tokens: admin and ordinary-user views, PATCH field rules, the
 * last-admin rule, DELETE, pagination links (limit/offset and page/per_page), the one error
 * body and tenant isolation (another organization's users are 404, like unknown ids).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, call, passwordToken } from './emulator-harness.js';
import { type AccountsRig, startAccountsRig } from './emulator-accounts-support.js';

let rig: AccountsRig;
beforeEach(async () => {
  rig = await startAccountsRig();
});
afterEach(async () => rig.close());

const get = (token: string, path: string) => call(rig.h.baseUrl, 'GET', path, token);

describe('GET /v1/users/', () => {
  it('an admin sees every member of the organization with the spec fields', async () => {
    const res = await get(rig.admin, '/v1/users/');
    expect(res.status).toBe(200);
    const expectedOrder = [rig.adminId, rig.aliceId].sort();
    expect(res.body.count).toBe(2);
    expect(res.body.results.map((u: { id: string }) => u.id)).toEqual(expectedOrder);
    const alice = res.body.results.find((u: { id: string }) => u.id === rig.aliceId);
    expect(alice).toEqual({
      id: rig.aliceId,
      email: DEMO.user.email,
      first_name: 'Alice',
      last_name: 'Example',
      display_name: 'Alice Example',
      date_joined: new Date(rig.h.clock.now()).toISOString(),
      cloud_profile: null,
      id_profile: null,
      user_invitations: null,
      roles: ['user'],
      is_verified: true,
    });
  });

  it('an ordinary user sees only their own record', async () => {
    const res = await get(rig.alice, '/v1/users/');
    expect(res.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(res.body.results.map((u: { id: string }) => u.id)).toEqual([rig.aliceId]);
  });

  it('limit/offset pages carry absolute next and previous links', async () => {
    const [first, second] = [rig.adminId, rig.aliceId].sort();
    const page1 = await get(rig.admin, '/v1/users/?limit=1');
    expect(page1.body).toMatchObject({
      count: 2,
      next: `${rig.h.baseUrl}/v1/users/?limit=1&offset=1`,
      previous: null,
    });
    expect(page1.body.results[0].id).toBe(first);
    const page2 = await get(rig.admin, '/v1/users/?limit=1&offset=1');
    expect(page2.body).toMatchObject({ next: null, previous: `${rig.h.baseUrl}/v1/users/?limit=1&offset=0` });
    expect(page2.body.results[0].id).toBe(second);
  });

  it('page/per_page are accepted and keep their style in the links', async () => {
    const res = await get(rig.admin, '/v1/users/?page=2&per_page=1');
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBe(`${rig.h.baseUrl}/v1/users/?page=1&per_page=1`);
    expect(res.body.results.map((u: { id: string }) => u.id)).toEqual([[rig.adminId, rig.aliceId].sort()[1]]);
    const bad = await get(rig.admin, '/v1/users/?page=0');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'invalid_request',
      field: 'page',
      rule: 'must be an integer from 1 to 9007199254740991',
    });
  });

  it('needs a token with the account scope', async () => {
    const anonymous = await call(rig.h.baseUrl, 'GET', '/v1/users/', undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_token');
    const printing = await get(await passwordToken(rig.h.baseUrl, 'printing'), '/v1/users/');
    expect(printing.status).toBe(403);
    expect(printing.body).toMatchObject({ error: 'insufficient_scope' });
  });
});

describe('GET /v1/users/<id>/', () => {
  it('an admin reads a member; a user reads self; another member is 404 for a user', async () => {
    expect((await get(rig.admin, `/v1/users/${rig.aliceId}/`)).body.email).toBe(DEMO.user.email);
    expect((await get(rig.alice, `/v1/users/${rig.aliceId}`)).body.email).toBe(DEMO.user.email);
    const hidden = await get(rig.alice, `/v1/users/${rig.adminId}/`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'not_found', message: `user ${rig.adminId} not found` });
  });
});

describe('PATCH /v1/users/<id>/', () => {
  it('changes names and e-mail; other fields are refused naming the field', async () => {
    const res = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.admin, {
      first_name: 'Alicia',
      email: 'alicia@demo.test',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      first_name: 'Alicia',
      email: 'alicia@demo.test',
      display_name: 'Alicia Example',
    });
    const refused = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.admin, {
      first_name: 'X',
      is_verified: false,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'invalid_request',
      field: 'is_verified',
      rule: 'is not changeable; only first_name, last_name, email, roles may be sent',
    });
    expect((await get(rig.admin, `/v1/users/${rig.aliceId}`)).body.first_name).toBe('Alicia');
  });

  it('refuses a bad e-mail and one used by another account', async () => {
    const bad = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.admin, { email: 'nope' });
    expect(bad.body).toMatchObject({ field: 'email', rule: 'must be an e-mail address' });
    const taken = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.admin, {
      email: DEMO.otherAdmin.email.toUpperCase(),
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      error: 'email_taken',
      message: 'email: another account uses this address',
      field: 'email',
    });
  });

  it('an ordinary user edits their own names but not roles, and nobody else', async () => {
    const own = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.alice, {
      last_name: 'Smith',
    });
    expect(own.body.last_name).toBe('Smith');
    const roles = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.alice, {
      roles: 'admin',
    });
    expect(roles.status).toBe(403);
    expect(roles.body).toEqual({
      error: 'forbidden',
      message: 'roles: only an admin of the organization may change roles',
    });
    const other = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.adminId}/`, rig.alice, {
      last_name: 'X',
    });
    expect(other.status).toBe(404);
  });

  it('roles as a string or an array; the last admin cannot be demoted', async () => {
    const last = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.adminId}/`, rig.admin, {
      roles: 'user',
    });
    expect(last.status).toBe(409);
    expect(last.body).toEqual({
      error: 'last_admin',
      message: 'an organization must keep at least one admin: make another member admin first',
      field: 'roles',
    });
    const promote = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.admin, {
      roles: 'admin',
    });
    expect(promote.body.roles).toEqual(['admin', 'user']);
    const demote = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.adminId}/`, rig.admin, {
      roles: ['user'],
    });
    expect(demote.body.roles).toEqual(['user']);
    const invalid = await call(rig.h.baseUrl, 'PATCH', `/v1/users/${rig.aliceId}/`, rig.alice, {
      roles: ['owner'],
    });
    expect(invalid.body).toMatchObject({
      field: 'roles',
      rule: 'must be admin or user, or a non-empty array of them without repeats',
    });
    // The demoted admin's roles are read afresh on its next call: admin-only calls now answer 403.
    expect((await call(rig.h.baseUrl, 'DELETE', `/v1/users/${rig.aliceId}/`, rig.admin)).status).toBe(403);
  });
});

describe('DELETE /v1/users/<id>/', () => {
  it('an admin deletes a user: 204, the user and its tokens are gone', async () => {
    const res = await call(rig.h.baseUrl, 'DELETE', `/v1/users/${rig.aliceId}/`, rig.admin);
    expect(res.status).toBe(204);
    expect((await get(rig.admin, `/v1/users/${rig.aliceId}/`)).status).toBe(404);
    expect(rig.h.emulator.app.emulator.store.users.findById(rig.aliceId)).toBeUndefined();
    expect((await get(rig.alice, '/v1/users/')).status).toBe(401);
  });

  it('an ordinary user may not delete; the last admin stays', async () => {
    const byUser = await call(rig.h.baseUrl, 'DELETE', `/v1/users/${rig.aliceId}/`, rig.alice);
    expect(byUser.status).toBe(403);
    expect(byUser.body).toEqual({ error: 'forbidden', message: 'deleting a user needs the admin role' });
    const self = await call(rig.h.baseUrl, 'DELETE', `/v1/users/${rig.adminId}/`, rig.admin);
    expect(self.status).toBe(409);
    expect(self.body.error).toBe('last_admin');
    expect((await get(rig.admin, '/v1/users/')).body.count).toBe(2);
  });
});

describe('tenant isolation', () => {
  it('every user route with another organization token answers 404 exactly as for an unknown id', async () => {
    const unknown = randomUUID();
    const routes: ['GET' | 'PATCH' | 'DELETE', unknown][] = [
      ['GET', undefined],
      ['PATCH', { first_name: 'Mallory' }],
      ['DELETE', undefined],
    ];
    for (const [method, body] of routes) {
      const existing = await call(rig.h.baseUrl, method, `/v1/users/${rig.aliceId}/`, rig.other, body);
      const missing = await call(rig.h.baseUrl, method, `/v1/users/${unknown}/`, rig.other, body);
      expect([method, existing.status]).toEqual([method, 404]);
      expect(existing.body).toEqual({ error: 'not_found', message: `user ${rig.aliceId} not found` });
      expect(missing.body).toEqual({ error: 'not_found', message: `user ${unknown} not found` });
    }
    expect((await get(rig.admin, `/v1/users/${rig.aliceId}`)).body.first_name).toBe('Alice');
    const list = await get(rig.other, '/v1/users/');
    expect(list.body.results.map((u: { id: string }) => u.id)).toEqual([rig.otherAdminId]);
  });
});
