/**
 * The partner API over HTTP with real tokens (the demo partner manages Demo Org and Other Org):
 * both organization create variants and their rules, rename, the cascade of delete and its 409
 * while a multi-tenant client exists, members (expand=user) and memberships
 * (expand=organization) with the role rules, partner-scoped clients hidden from the client API,
 * and the isolation matrix: every route with an organization or user the partner does not
 * manage answers 404 exactly as an unknown id does.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AccountsRig,
  clientToken,
  latestMail,
  openInvitationForm,
  postInvitationForm,
  startAccountsRig,
} from './emulator-accounts-support.js';
import { DEMO, call, passwordToken, registration, tokenRequest } from './emulator-harness.js';
import { OTHER_CLIENT } from './emulator-sfapi-harness.js';

const DAY = 24 * 3600 * 1000;
const ORGS = '/partner/v1/organizations';
let rig: AccountsRig;
beforeEach(async () => {
  rig = await startAccountsRig();
});
afterEach(async () => rig.close());

const p = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  call(rig.h.baseUrl, method, path, rig.partner, body);
const store = () => rig.h.emulator.app.emulator.store;

describe('organizations', () => {
  it('creates with an existing user as admin, lists, reads and renames', async () => {
    rig.h.clock.advance(1000); // the list is ordered by creation time, then name
    const created = await p('POST', `${ORGS}/`, {
      name: 'New Org',
      admin_user: rig.aliceId,
      currency_code: 'USD',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'New Org', admin_user: rig.aliceId });
    const list = await p('GET', `${ORGS}/`);
    expect(list.body.count).toBe(3);
    expect(list.body.results.at(-1)).toEqual({
      id: created.body.id,
      name: 'New Org',
      cloud_profile: null,
      currency_code: 'USD',
    });
    expect(
      list.body.results
        .slice(0, 2)
        .map((o: { name: string }) => o.name)
        .sort(),
    ).toEqual(['Demo Org', 'Other Org']);
    const renamed = await p('PATCH', `${ORGS}/${created.body.id}`, { name: 'Renamed Org' });
    expect(renamed.body).toEqual({
      id: created.body.id,
      name: 'Renamed Org',
      cloud_profile: null,
      currency_code: 'USD',
    });
    expect((await p('GET', `${ORGS}/${created.body.id}`)).body.name).toBe('Renamed Org');
    const memberships = await p('GET', `/partner/v1/users/${rig.aliceId}/memberships/?expand=organization`);
    expect(memberships.body.count).toBe(2);
    expect(memberships.body.results[1]).toEqual({
      organization: {
        id: created.body.id,
        name: 'Renamed Org',
        cloud_profile: null,
        owner: rig.aliceId,
        roles: null,
      },
      roles: ['admin', 'user'],
    });
  });

  it('creates with an invited admin: the invitation is mailed and accepting makes the announced user', async () => {
    const expire = new Date(rig.h.clock.now() + 3 * DAY).toISOString();
    const created = await p('POST', `${ORGS}/`, {
      name: 'Invited Org',
      currency_code: 'EUR',
      admin_user_invitation: {
        email: 'boss@invited.test',
        expire_date: expire,
        user: { first_name: 'Bea', last_name: 'Boss', preferred_language: 'de' },
      },
    });
    expect(created.status).toBe(201);
    const invitation = created.body.admin_user_invitation;
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Invited Org',
      admin_user_invitation: {
        id: expect.any(String),
        updated: new Date(rig.h.clock.now()).toISOString(),
        email: 'boss@invited.test',
        expire_date: expire,
        delivery_status: 'SENT',
        invitation_status: 'OPEN',
        user: { id: invitation.user.id, first_name: 'Bea', last_name: 'Boss', preferred_language: 'de' },
      },
    });
    expect(invitation.user.id).not.toBe(invitation.id);
    const mail = await latestMail(rig.h.baseUrl, 'boss@invited.test');
    expect(mail.subject).toBe('You are invited to Invited Org on PrintRelay');
    const token = new URL(mail.link).searchParams.get('token')!;
    const form = await openInvitationForm(mail.link);
    const accepted = await postInvitationForm(rig.h.baseUrl, { token, password: 'boss-password' }, form);
    expect(accepted.status).toBe(200);
    expect(accepted.text).toContain('You joined <strong>Invited Org</strong>.');
    const members = await p('GET', `${ORGS}/${created.body.id}/members/?expand=user`);
    expect(members.body.results).toEqual([
      {
        user: {
          id: invitation.user.id,
          email: 'boss@invited.test',
          first_name: 'Bea',
          last_name: 'Boss',
          created: new Date(rig.h.clock.now()).toISOString(),
          is_verified: true,
          preferred_language: 'de',
        },
        roles: ['admin', 'user'],
      },
    ]);
  });

  it('validates the create body naming the field; a taken name is 409', async () => {
    const base = { name: 'X Org', admin_user: rig.aliceId, currency_code: 'EUR' };
    const cases: [unknown, string, string][] = [
      [{ ...base, currency_code: 'GBP' }, 'currency_code', 'must be one of USD, EUR'],
      [{ ...base, currency_code: undefined }, 'currency_code', 'must be one of USD, EUR'],
      [
        { ...base, admin_user: undefined },
        'admin_user',
        'give exactly one of admin_user and admin_user_invitation',
      ],
      [
        { ...base, admin_user_invitation: {} },
        'admin_user',
        'give exactly one of admin_user and admin_user_invitation',
      ],
      [{ ...base, admin_user: 'nope' }, 'admin_user', 'must be a UUID'],
      [
        { ...base, admin_user: randomUUID() },
        'admin_user',
        'must be a user of an organization this partner manages',
      ],
      [{ ...base, name: '' }, 'name', 'must not be empty'],
      [
        {
          name: 'X Org',
          currency_code: 'EUR',
          admin_user_invitation: { email: 'a@b.test', expire_date: '2020-01-01T00:00:00Z', user: {} },
        },
        'admin_user_invitation.expire_date',
        'must lie in the future',
      ],
    ];
    for (const [body, field, rule] of cases) {
      const res = await p('POST', `${ORGS}/`, body);
      expect([res.status, res.body.field, res.body.rule]).toEqual([400, field, rule]);
    }
    const partnerAdminId = store().users.findByEmail(DEMO.partner.admin.email)!.id;
    const own = await p('POST', `${ORGS}/`, { ...base, admin_user: partnerAdminId });
    expect(own.body.field).toBe('admin_user');
    const taken = await p('POST', `${ORGS}/`, { ...base, name: 'Other Org' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      error: 'name_taken',
      message: 'name: an organization of this name exists',
      field: 'name',
    });
    expect((await p('GET', `${ORGS}/`)).body.count).toBe(2);
    const rename = await p('PATCH', `${ORGS}/${rig.demoOrgId}`, { name: 'Y', currency_code: 'USD' });
    expect(rename.body).toMatchObject({
      field: 'currency_code',
      rule: 'is not changeable; only name may be sent',
    });
    expect((await p('PATCH', `${ORGS}/${rig.demoOrgId}`, {})).body).toMatchObject({
      field: 'name',
      rule: 'is required',
    });
  });

  it('paginates with absolute links', async () => {
    const res = await p('GET', `${ORGS}/?limit=1&offset=1`);
    expect(res.body).toMatchObject({
      count: 2,
      next: null,
      previous: `${rig.h.baseUrl}${ORGS}/?limit=1&offset=0`,
    });
  });
});

describe('organization delete', () => {
  it('cascades: sole members are deleted, members elsewhere stay; printers, connectors, groups and clients go', async () => {
    const printing = await passwordToken(rig.h.baseUrl, 'printing printing.connectors');
    const connector = await call(
      rig.h.baseUrl,
      'POST',
      '/connector/v1/register',
      printing,
      registration('DEL-1'),
    );
    expect(connector.status).toBeLessThan(300);
    await call(
      rig.h.baseUrl,
      'POST',
      '/printing/v1/printers/',
      printing,
      { name: 'Doomed', status: 'Online' },
      { 'x-host-id': connector.body.id },
    );
    await call(rig.h.baseUrl, 'POST', '/printing/v1/groups/', printing, { name: 'Doomed group' });
    // The demo admin is also a member of Other Org: it must survive, moving home there.
    expect(
      (await p('POST', `${ORGS}/${rig.otherOrgId}/members/`, { user: rig.adminId, roles: ['user'] })).status,
    ).toBe(201);
    const counts = () =>
      ['printers', 'connectors', 'printing_groups', 'oauth_clients', 'memberships', 'invitations'].map(
        (t) =>
          (
            store()
              .db.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE organization_id = ?`)
              .get(rig.demoOrgId) as { n: number }
          ).n,
      );
    // Two printers and connectors: the one registered here and the pull-printing queue of the organization.
    expect(counts()).toEqual([2, 2, 1, 1, 2, 0]);

    const res = await p('DELETE', `${ORGS}/${rig.demoOrgId}`);
    expect(res.status).toBe(204);
    expect(counts()).toEqual([0, 0, 0, 0, 0, 0]);
    expect(store().users.findById(rig.aliceId)).toBeUndefined();
    expect(store().users.findById(rig.adminId)).toMatchObject({
      organizationId: rig.otherOrgId,
      roles: ['user'],
    });
    expect((await p('GET', `${ORGS}/${rig.demoOrgId}`)).status).toBe(404);
    expect((await call(rig.h.baseUrl, 'GET', '/v1/users/me/', rig.alice)).status).toBe(401);
    expect((await call(rig.h.baseUrl, 'GET', '/v1/users/', rig.admin)).status).toBe(401);
    const moved = await clientToken(rig.h.baseUrl, OTHER_CLIENT, DEMO.admin);
    expect((await call(rig.h.baseUrl, 'GET', '/v1/users/me/', moved)).body.organization_id).toBe(
      rig.otherOrgId,
    );
    expect((await p('GET', `${ORGS}/`)).body.count).toBe(1);
  });

  it('409 tenant_mode_multi_clients_exist while the organization owns a multi-tenant client; nothing is deleted', async () => {
    const client = await call(rig.h.baseUrl, 'POST', '/v1/oauth-clients/public/', rig.admin, {
      name: 'Multi',
      redirect_urls: ['https://app.example/cb'],
      tenant_mode: 'multi',
    });
    expect(client.status).toBe(201);
    const res = await p('DELETE', `${ORGS}/${rig.demoOrgId}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'tenant_mode_multi_clients_exist',
      message: 'the organization owns a multi-tenant OAuth client; delete that client first',
    });
    expect(store().users.findById(rig.aliceId)).toBeDefined();
    await call(rig.h.baseUrl, 'DELETE', `/v1/oauth-clients/${client.body.client_id}/`, rig.admin);
    expect((await p('DELETE', `${ORGS}/${rig.demoOrgId}`)).status).toBe(204);
  });
});

describe('members and memberships', () => {
  it('adds a user of a managed organization, reads with expand, changes roles, removes', async () => {
    const path = `${ORGS}/${rig.demoOrgId}/members/`;
    const added = await p('POST', path, { user: rig.otherAdminId, roles: ['user'] });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ user: rig.otherAdminId, roles: ['user'] });
    expect((await p('POST', path, { user: rig.otherAdminId, roles: ['user'] })).body.error).toBe(
      'already_member',
    );
    const one = await p('GET', `${path}${rig.otherAdminId}?expand=user`);
    expect(one.body).toMatchObject({
      user: { id: rig.otherAdminId, email: DEMO.otherAdmin.email, preferred_language: 'en' },
      roles: ['user'],
    });
    expect((await p('PATCH', `${path}${rig.otherAdminId}`, { roles: ['admin', 'user'] })).body).toEqual({
      user: rig.otherAdminId,
      roles: ['admin', 'user'],
    });
    const list = await p('GET', `${path}?limit=2`);
    expect(list.body.count).toBe(3);
    expect(list.body.next).toBe(`${rig.h.baseUrl}${path}?limit=2&offset=2`);
    const memberships = await p('GET', `/partner/v1/users/${rig.otherAdminId}/memberships/`);
    expect(memberships.body.results.map((m: { organization: string }) => m.organization).sort()).toEqual(
      [rig.demoOrgId, rig.otherOrgId].sort(),
    );
    expect(
      (await p('GET', `/partner/v1/users/${rig.otherAdminId}/memberships/${rig.demoOrgId}/`)).body,
    ).toEqual({
      organization: rig.demoOrgId,
      roles: ['admin', 'user'],
    });
    expect((await p('DELETE', `${path}${rig.otherAdminId}`)).status).toBe(204);
    expect(store().users.findById(rig.otherAdminId)?.organizationId).toBe(rig.otherOrgId);
  });

  it('role rules: the last admin stays; removing the last membership deletes the user', async () => {
    const path = `${ORGS}/${rig.demoOrgId}/members/`;
    const demote = await p('PATCH', `${path}${rig.adminId}`, { roles: 'user' });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toBe('last_admin');
    expect((await p('DELETE', `${path}${rig.adminId}`)).body.error).toBe('last_admin');
    expect((await p('DELETE', `${path}${rig.aliceId}`)).status).toBe(204);
    expect(store().users.findById(rig.aliceId)).toBeUndefined();
    const bad = await p('POST', path, { user: randomUUID(), roles: ['user'] });
    expect(bad.body).toMatchObject({
      field: 'user',
      rule: 'must be a user of an organization this partner manages; invite anyone else with POST /v1/userinvitations/',
    });
    expect((await p('GET', `${path}?expand=organization`)).body).toMatchObject({
      field: 'expand',
      rule: 'must be user',
    });
    expect((await p('POST', path, { user: rig.adminId, roles: ['owner'] })).body.field).toBe('roles');
  });
});

describe('who may call', () => {
  it('only admins of a partner account: an organization admin, a user and a client token get 403', async () => {
    const cc = await call(rig.h.baseUrl, 'GET', `${ORGS}/`, await clientCredentials());
    for (const res of [
      await call(rig.h.baseUrl, 'GET', `${ORGS}/`, rig.admin),
      await call(rig.h.baseUrl, 'GET', `${ORGS}/`, rig.alice),
      cc,
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'forbidden',
        message: 'the partner API needs a token of an admin of a partner account',
      });
    }
  });

  it('partner-scoped clients are hidden from the client API and 404 on direct access', async () => {
    const list = await call(rig.h.baseUrl, 'GET', '/v1/oauth-clients/', rig.partner);
    expect(list.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const direct = await call(
      rig.h.baseUrl,
      'GET',
      `/v1/oauth-clients/${DEMO.partner.client.id}/`,
      rig.partner,
    );
    expect(direct.status).toBe(404);
    expect(direct.body).toEqual({
      error: 'not_found',
      message: `OAuth client ${DEMO.partner.client.id} not found`,
    });
  });
});

describe('isolation matrix', () => {
  it('every partner route with an unmanaged organization or user answers 404 exactly like an unknown id', async () => {
    const partnerAdminId = store().users.findByEmail(DEMO.partner.admin.email)!.id;
    const unmanaged = rig.partnerOrgId;
    const unknown = randomUUID();
    const routes = (org: string, user: string): [Parameters<typeof p>[0], string, unknown][] => [
      ['GET', `${ORGS}/${org}`, undefined],
      ['PATCH', `${ORGS}/${org}`, { name: 'Taken Over' }],
      ['DELETE', `${ORGS}/${org}`, undefined],
      ['GET', `${ORGS}/${org}/members/`, undefined],
      ['POST', `${ORGS}/${org}/members/`, { user: rig.aliceId, roles: ['user'] }],
      ['GET', `${ORGS}/${org}/members/${user}`, undefined],
      ['PATCH', `${ORGS}/${org}/members/${user}`, { roles: ['user'] }],
      ['DELETE', `${ORGS}/${org}/members/${user}`, undefined],
      ['GET', `/partner/v1/users/${rig.aliceId}/memberships/${org}/`, undefined],
    ];
    const hidden = routes(unmanaged, partnerAdminId);
    const missing = routes(unknown, partnerAdminId);
    for (const [i, [method, path, body]] of hidden.entries()) {
      const a = await p(method, path, body);
      const b = await p(missing[i]![0], missing[i]![1], missing[i]![2]);
      expect([method, path, a.status]).toEqual([method, path, 404]);
      expect(a.body).toEqual({ ...b.body, message: b.body.message.replace(unknown, unmanaged) });
    }
    const userHidden = await p('GET', `/partner/v1/users/${partnerAdminId}/memberships/`);
    const userMissing = await p('GET', `/partner/v1/users/${unknown}/memberships/`);
    expect(userHidden.status).toBe(404);
    expect(userHidden.body).toEqual({
      ...userMissing.body,
      message: userMissing.body.message.replace(unknown, partnerAdminId),
    });
    expect(store().organizations.findById(unmanaged)?.name).toBe(DEMO.partner.organization);
  });
});

async function clientCredentials(): Promise<string> {
  const { id, secret } = DEMO.partner.client;
  const basic = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const res = await tokenRequest(
    rig.h.baseUrl,
    { grant_type: 'client_credentials', scope: 'account' },
    basic,
  );
  return res.body['access_token'] as string;
}
