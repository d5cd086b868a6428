/**
 * client_credentials tokens at the emulator's APIs (spec "Authentication": server-to-server; spec
 * C: client_credentials is exempt from tenant_mode; C rule 6: a deleted client's tokens live until
 * they expire). A real token from the grant is a caller of kind `client`: it reads what belongs to
 * its client's organization (GetPrinter, GET /printing/v1/printers/, ...) with the scopes it
 * carries, and every call that acts for a user or needs an admin answers 403 naming the rule.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/config/demo-seed.js';
import { ManualClock } from '../../src/lib/clock.js';
import { api, basic, formPost } from './emulator-oauth-harness.js';
import { type SfapiHarness, passwordToken, startSfapiHarness } from './emulator-sfapi-harness.js';

let h: SfapiHarness;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  h = await startSfapiHarness(clock);
});
afterAll(async () => {
  await h.close();
});

/** The client of the other organization in the sfapi harness's seed (every grant type). */
const OTHER_CLIENT = { id: 'other-app', secret: 'other-secret' };

/** The raw answer of a client_credentials token request. */
function clientCredentials(client: { id: string; secret: string }, scope: string) {
  return formPost(
    `${h.base}/oauth/access_token/`,
    { grant_type: 'client_credentials', scope },
    { authorization: basic(client.id, client.secret) },
  );
}

/** An access token of the client_credentials grant. */
async function clientToken(scope: string, client: { id: string; secret: string } = DEMO.client) {
  const res = await clientCredentials(client, scope);
  if (res.status !== 200)
    throw new Error(`client_credentials failed: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body['refresh_token']).toBeUndefined();
  return res.body['access_token'] as string;
}

const get = (path: string, token: string) => api(h.base, 'GET', path, token);

describe('what a client_credentials token may call', () => {
  it("reads its organization's printers: /sfapi/GetPrinter and GET /printing/v1/printers/", async () => {
    const token = await clientToken('printing');
    expect(decodeJwt(token)).toMatchObject({ sub: DEMO.client.id, tk: 'client', scopes: 'printing' });

    // The same printers a user of the organization sees.
    const printers = await get('/sfapi/GetPrinter/', token);
    expect(printers.status).toBe(200);
    expect(printers.body).toContainEqual({ id: h.printerId, name: h.printerName, location: '' });
    expect(printers.body).toEqual((await get('/sfapi/GetPrinter/', h.token)).body);

    const list = await get('/printing/v1/printers/', token);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(printers.body.length);
    expect(list.body.results.map((p: { id: string }) => p.id)).toContain(h.printerId);
    expect((await get(`/printing/v1/printers/${h.printerId}/`, token)).status).toBe(200);

    expect((await get('/sfapi/GetConfiguration/', token)).status).toBe(200);
    expect((await get(`/sfapi/GetPrinterProperties/?id=${h.printerId}`, token)).status).toBe(200);
    const status = await get('/sfapi/Status/?id=no-such-job', token);
    expect(status.status).toBe(200);
    expect(status.body.jobstatus).toBe(2);
  });

  it("sees only its own client's organization", async () => {
    const token = await clientToken('printing', OTHER_CLIENT);
    const printers = (await get('/sfapi/GetPrinter/', token)).body;
    expect(printers).toEqual((await get('/sfapi/GetPrinter/', h.otherToken)).body);
    expect(printers.map((p: { id: string }) => p.id)).not.toContain(h.printerId);
    expect((await get(`/printing/v1/printers/${h.printerId}/`, token)).status).toBe(404);
  });

  it('scopes are checked as for user tokens', async () => {
    const account = await clientToken('account');
    const res = await get('/sfapi/GetPrinter/', account);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect((await get('/printing/v1/printers/', account)).status).toBe(403);
    const reporting = await clientToken('reporting');
    expect((await get('/printing/v1/printers/', reporting)).body.error).toBe('insufficient_scope');
  });
});

describe('calls that act for a user or need an admin refuse it, naming the rule', () => {
  it('PrepareUpload and Print: a job is submitted by a user', async () => {
    const token = await clientToken('printing');
    const jobsBefore = h.emulator.app.emulator.store.db.prepare('SELECT COUNT(*) AS n FROM jobs').get();
    const upload = await get('/sfapi/PrepareUpload/', token);
    expect(upload.status).toBe(403);
    expect(upload.body.message).toMatch(/PrepareUpload.*acts for a signed-in user.*client_credentials/);
    const print = await api(h.base, 'POST', '/sfapi/Print/', token, {
      fileurl: 'https://files.example.test/doc.pdf',
      type: 'pdf',
      printerid: h.printerId,
    });
    expect(print.status).toBe(403);
    expect(print.body.message).toMatch(/POST \/sfapi\/Print\/ acts for a signed-in user/);
    expect(h.emulator.app.emulator.store.db.prepare('SELECT COUNT(*) AS n FROM jobs').get()).toEqual(
      jobsBefore,
    );
  });

  it('/v1/users/me/ and its card claim: there is no user', async () => {
    const token = await clientToken('printing account');
    const me = await get('/v1/users/me/', token);
    expect(me.status).toBe(403);
    expect(me.body.message).toMatch(/users\/me.*client_credentials token stands for its client alone/);
    const claim = await api(h.base, 'POST', '/v1/users/me/cards/claim/', token, { code: '123456' });
    expect(claim.status).toBe(403);
    expect(claim.body.message).toMatch(/acts for a signed-in user/);
  });

  it("client management needs an organization admin's token", async () => {
    const token = await clientToken('account');
    const res = await get('/v1/oauth-clients/', token);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/organization admin's token; a client_credentials token/);
    const create = await api(h.base, 'POST', '/v1/oauth-clients/public/', token, {
      name: 'x',
      redirect_urls: ['https://app.example/cb'],
    });
    expect(create.status).toBe(403);
  });

  it('admin-only calls: a client has no role', async () => {
    const token = await clientToken('printing');
    const res = await api(
      h.base,
      'POST',
      `/printing/v1/printers/${h.printerId}/pull_printing_pairing`,
      token,
      {
        code: 'release-1234',
      },
    );
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/admin role/);
  });
});

describe('lifetime', () => {
  it('a user token whose user vanished is still refused: the user of the token no longer exists', async () => {
    const { store } = h.emulator.app.emulator;
    const alice = store.users.findByEmail(DEMO.user.email)!;
    const other = store.organizations.findByName(DEMO.otherOrganization)!;
    const move = store.db.prepare('UPDATE users SET organization_id = ? WHERE id = ?');
    move.run(other.id, alice.id);
    try {
      const res = await get('/sfapi/GetPrinter/', h.token);
      expect(res.status).toBe(401);
      expect(res.body.error_description).toBe('the user of the token no longer exists');
    } finally {
      move.run(alice.organizationId, alice.id);
    }
    expect((await get('/sfapi/GetPrinter/', h.token)).status).toBe(200);
  });

  it('revoking the token refuses it at once', async () => {
    const token = await clientToken('printing');
    const res = await formPost(
      `${h.base}/oauth/revoke/`,
      { token, token_type_hint: 'access_token' },
      { authorization: basic(DEMO.client.id, DEMO.client.secret) },
    );
    expect(res.status).toBe(200);
    expect((await get('/sfapi/GetPrinter/', token)).status).toBe(401);
  });

  it('deleting the client: no new token, issued tokens live until they expire (3600 s)', async () => {
    const { store } = h.emulator.app.emulator;
    const org = store.organizations.findByName(DEMO.organization)!;
    const machine = { id: 'cc-machine', secret: 'cc-machine-secret' };
    // The client API creates no client_credentials clients, so this one is put in the store.
    store.clients.create(
      {
        clientId: machine.id,
        organizationId: org.id,
        secretHash: await h.emulator.app.emulator.credentials.hasher.hash(machine.secret),
        name: 'Machine',
        externalDescription: '',
        clientType: 'confidential',
        grantTypes: ['client_credentials'],
        redirectUrls: [],
        allowedScopes: ['printing'],
        tenantMode: 'single',
        protected: false,
        origin: 'api',
      },
      clock.now(),
    );
    const token = await clientToken('printing', machine);
    expect((await get('/sfapi/GetPrinter/', token)).status).toBe(200);

    const admin = await passwordToken(h.base, DEMO.admin.email, DEMO.admin.password, 'account');
    expect((await api(h.base, 'DELETE', `/v1/oauth-clients/${machine.id}/`, admin)).status).toBe(204);

    const refused = await clientCredentials(machine, 'printing');
    expect(refused.status).toBe(401);
    expect(refused.body['error']).toBe('invalid_client');
    expect((await get('/sfapi/GetPrinter/', token)).status).toBe(200);

    clock.advance(3600 * 1000 + 1000);
    const expired = await get('/sfapi/GetPrinter/', token);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('invalid_token');
  });
});
