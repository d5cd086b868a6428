/**
 * Who may read /_emulator/mail: a loopback client without forwarding headers reads every mail;
 * anyone else needs an organization admin's token and reads only that organization's mails. The
 * remote side is real: the emulator listens on this machine's non-loopback address and the
 * requests come in over that interface.
 */
import { networkInterfaces } from 'node:os';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccountsRig, startAccountsRig } from './emulator-accounts-support.js';
import { call } from './emulator-harness.js';

const DAY = 24 * 3600 * 1000;
let rig: AccountsRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** This machine's first non-loopback IPv4 address; under CI=true its absence fails the run. */
function lanAddress(): string | undefined {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  if (found) return found;
  const message = 'no non-loopback IPv4 interface: the remote-reader tests need one';
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`skipping: ${message}`);
  return undefined;
}

/** One invitation in Demo Org and one in Other Org, so each has one mail. */
async function inviteInBothOrganizations(r: AccountsRig): Promise<void> {
  const expire_date = new Date(r.h.clock.now() + 3 * DAY).toISOString();
  for (const [token, email] of [
    [r.admin, 'demo-invitee@demo.test'],
    [r.other, 'other-invitee@other.test'],
  ] as const) {
    const res = await call(r.h.baseUrl, 'POST', '/v1/userinvitations/', token, { email, expire_date });
    expect(res.status).toBe(201);
  }
}

const recipients = (body: { results: { to: string }[] }) => body.results.map((m) => m.to);

describe('/_emulator/mail from loopback', () => {
  it('answers every mail without a token', async () => {
    rig = await startAccountsRig();
    await inviteInBothOrganizations(rig);
    const res = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', undefined);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(recipients(res.body)).toEqual(['other-invitee@other.test', 'demo-invitee@demo.test']);
  });

  it('treats a forwarded request (a proxy on loopback) as remote: no token is 401', async () => {
    rig = await startAccountsRig();
    await inviteInBothOrganizations(rig);
    const forwarded: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
    ];
    for (const header of forwarded) {
      const res = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', undefined, undefined, header);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: 'invalid_token',
        error_description: 'an Authorization: Bearer token is required',
        message: 'an Authorization: Bearer token is required',
      });
    }
    const admin = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', rig.admin, undefined, {
      'x-forwarded-for': '203.0.113.9',
    });
    expect(recipients(admin.body)).toEqual(['demo-invitee@demo.test']);
  });
});

const lan = lanAddress();

describe.skipIf(lan === undefined)('/_emulator/mail from another address', () => {
  it('needs an admin token and answers only that organization’s mails', async () => {
    rig = await startAccountsRig(lan);
    expect(new URL(rig.h.baseUrl).hostname).toBe(lan);
    await inviteInBothOrganizations(rig);

    const anonymous = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(
      'Bearer realm="printrelay", error="invalid_token", error_description="an Authorization: Bearer token is required"',
    );
    const user = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', rig.alice);
    expect(user.status).toBe(403);
    expect(user.body).toEqual({
      error: 'forbidden',
      message: 'the mail outbox needs the admin role of the organization (or a loopback client)',
    });

    const demo = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', rig.admin);
    expect(demo.status).toBe(200);
    expect(demo.body.count).toBe(1);
    expect(recipients(demo.body)).toEqual(['demo-invitee@demo.test']);
    const other = await call(rig.h.baseUrl, 'GET', '/_emulator/mail', rig.other);
    expect(recipients(other.body)).toEqual(['other-invitee@other.test']);
    const filtered = await call(
      rig.h.baseUrl,
      'GET',
      '/_emulator/mail?to=other-invitee@other.test',
      rig.admin,
    );
    expect(filtered.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('does not serve the HTML page to an anonymous browser elsewhere', async () => {
    rig = await startAccountsRig(lan);
    await inviteInBothOrganizations(rig);
    const res = await request(`${rig.h.baseUrl}/_emulator/mail`, { headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(401);
    const text = await res.body.text();
    expect(text).not.toContain('invitee');
  });
});
