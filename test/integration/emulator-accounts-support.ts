/**
 * Shared setup of the account, invitation and partner tests: an emulator with the demo seed
 * (Demo Org, Other Org, the partner "Demo Partner") plus a client of Other Org, and `account`
 * tokens of the demo admin, alice (a plain user), the other organization's admin and the partner
 * admin. `close()` stops the emulator.
 */
import { request } from 'undici';
import { DEMO, type Harness, call, passwordToken, startHarness, tokenRequest } from './emulator-harness.js';
import { OTHER_CLIENT, seedWithOtherClient } from './emulator-sfapi-harness.js';

/** The running emulator, tokens and ids of the tests. */
export interface AccountsRig {
  h: Harness;
  admin: string;
  alice: string;
  other: string;
  partner: string;
  adminId: string;
  aliceId: string;
  otherAdminId: string;
  demoOrgId: string;
  otherOrgId: string;
  partnerOrgId: string;
  close(): Promise<void>;
}

/** A password-grant access token of `user` through `client`. */
export async function clientToken(
  baseUrl: string,
  client: { id: string; secret: string },
  user: { email: string; password: string },
  scope = 'account',
): Promise<string> {
  const basic = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
  const form = { grant_type: 'password', username: user.email, password: user.password, scope };
  const res = await tokenRequest(baseUrl, form, basic);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body['access_token'] as string;
}

/** Starts the rig (listening on `host`, default 127.0.0.1); the caller closes it. */
export async function startAccountsRig(host?: string): Promise<AccountsRig> {
  const h = await startHarness({ seed: seedWithOtherClient(), ...(host ? { host } : {}) });
  const store = h.emulator.app.emulator.store;
  const org = (name: string) => store.organizations.findByName(name)!.id;
  const id = (email: string) => store.users.findByEmail(email)!.id;
  return {
    h,
    admin: await passwordToken(h.baseUrl, 'account'),
    alice: await passwordToken(h.baseUrl, 'account', DEMO.user),
    other: await clientToken(h.baseUrl, OTHER_CLIENT, DEMO.otherAdmin),
    partner: await clientToken(h.baseUrl, DEMO.partner.client, DEMO.partner.admin),
    adminId: id(DEMO.admin.email),
    aliceId: id(DEMO.user.email),
    otherAdminId: id(DEMO.otherAdmin.email),
    demoOrgId: org(DEMO.organization),
    otherOrgId: org(DEMO.otherOrganization),
    partnerOrgId: org(DEMO.partner.organization),
    close: () => h.close(),
  };
}

/** The newest mail of the outbox to `to` (JSON API), or throws. */
export async function latestMail(
  baseUrl: string,
  to: string,
): Promise<{ subject: string; body: string; link: string }> {
  const res = await call(baseUrl, 'GET', `/_emulator/mail?to=${encodeURIComponent(to)}&limit=1`, undefined);
  const mail = res.body.results[0];
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail;
}

/** The acceptance form of an invitation link as a browser gets it: its CSRF cookie and field. */
export interface InvitationForm {
  /** `name=value` of the form's signed CSRF cookie, for a Cookie header. */
  cookie: string;
  /** The hidden csrf_token field. */
  csrfToken: string;
}

/** GETs the acceptance form of `link` and reads its CSRF cookie and hidden field. */
export async function openInvitationForm(link: string): Promise<InvitationForm> {
  const res = await request(link, { headers: { accept: 'text/html' } });
  const html = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`the invitation form answered ${res.statusCode}`);
  const setCookie = [res.headers['set-cookie'] ?? []].flat();
  const cookie = setCookie.map((c) => c.split(';')[0] ?? '').find((c) => c.startsWith('printrelay_form='));
  const field = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!cookie || !field) throw new Error('the invitation form carries no CSRF cookie and field');
  return { cookie, csrfToken: field };
}

/** POSTs the acceptance form (fields as typed, plus what `form` carries unless left out). */
export async function postInvitationForm(
  baseUrl: string,
  fields: Record<string, string>,
  form: Partial<InvitationForm> = {},
): Promise<{ status: number; text: string }> {
  const res = await request(`${baseUrl}/accounts/invitation`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(form.cookie ? { cookie: form.cookie } : {}),
    },
    body: new URLSearchParams({
      ...fields,
      ...(form.csrfToken ? { csrf_token: form.csrfToken } : {}),
    }).toString(),
  });
  return { status: res.statusCode, text: await res.body.text() };
}
