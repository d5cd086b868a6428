/**
 * /v1/userinvitations/ over HTTP with real tokens, the mail outbox (JSON and HTML), and the
 * acceptance page driven by headless Chromium: OPEN -> ACCEPTED (a new user sets a password; an
 * existing user of another organization joins), EXPIRED by the injectable clock, resend with a
 * fresh link, and tenant isolation (another organization's invitation is 404).
 */
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { OTHER_CLIENT } from './emulator-sfapi-harness.js';
import { peersAvailable } from '../support/peers.js';
import {
  type AccountsRig,
  clientToken,
  latestMail,
  openInvitationForm,
  postInvitationForm,
  startAccountsRig,
} from './emulator-accounts-support.js';
import { DEMO, call, passwordToken } from './emulator-harness.js';

const DAY = 24 * 3600 * 1000;
let rig: AccountsRig;
beforeEach(async () => {
  rig = await startAccountsRig();
});
afterEach(async () => rig.close());

const inFuture = (ms: number) => new Date(rig.h.clock.now() + ms).toISOString();
const invite = (email: string, token = rig.admin, expire = inFuture(3 * DAY)) =>
  call(rig.h.baseUrl, 'POST', '/v1/userinvitations/', token, { email, expire_date: expire });

describe('POST and GET /v1/userinvitations/', () => {
  it('creates an OPEN invitation, SENT, and mails its link to the outbox', async () => {
    const expire = inFuture(3 * DAY);
    const res = await invite('bob@demo.test', rig.admin, expire);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      updated: new Date(rig.h.clock.now()).toISOString(),
      email: 'bob@demo.test',
      expire_date: expire,
      delivery_status: 'SENT',
      invitation_status: 'OPEN',
    });
    const mail = await latestMail(rig.h.baseUrl, 'bob@demo.test');
    expect(mail.subject).toBe('You are invited to Demo Org on PrintRelay');
    expect(mail.link).toMatch(new RegExp(`^${rig.h.baseUrl}/accounts/invitation\\?token=[A-Za-z0-9_-]{32}$`));
    expect(mail.body).toContain(mail.link);
    const list = await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/', rig.admin);
    expect(list.body).toEqual({ count: 1, next: null, previous: null, results: [res.body] });
  });

  it('validates the body naming the field', async () => {
    const cases: [unknown, string, string][] = [
      [{ expire_date: inFuture(DAY) }, 'email', 'is required'],
      [{ email: 'x@demo.test' }, 'expire_date', 'is required'],
      [{ email: 'not-mail', expire_date: inFuture(DAY) }, 'email', 'must be an e-mail address'],
      [
        { email: 'x@demo.test', expire_date: 'tomorrow' },
        'expire_date',
        'must be an ISO 8601 date-time with a time zone',
      ],
      [{ email: 'x@demo.test', expire_date: inFuture(-1000) }, 'expire_date', 'must lie in the future'],
    ];
    for (const [body, field, rule] of cases) {
      const res = await call(rig.h.baseUrl, 'POST', '/v1/userinvitations/', rig.admin, body);
      expect([res.status, res.body.field, res.body.rule]).toEqual([400, field, rule]);
    }
    expect((await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/', rig.admin)).body.count).toBe(0);
  });

  it('409 for a member or an address already invited; 403 for a non-admin', async () => {
    const member = await invite(DEMO.user.email);
    expect(member.status).toBe(409);
    expect(member.body).toEqual({
      error: 'already_member',
      message: 'email: this address is already a member of the organization',
      field: 'email',
    });
    await invite('carol@demo.test');
    expect((await invite('CAROL@demo.test')).body.error).toBe('already_invited');
    const byUser = await invite('dave@demo.test', rig.alice);
    expect(byUser.status).toBe(403);
    expect(byUser.body).toEqual({
      error: 'forbidden',
      message: 'invitations need the admin role of the organization',
    });
  });

  it('turns EXPIRED by the clock; the link then shows a 410 page', async () => {
    await invite('erin@demo.test', rig.admin, inFuture(DAY));
    const { link } = await latestMail(rig.h.baseUrl, 'erin@demo.test');
    expect((await fetchPage(link)).status).toBe(200);
    rig.h.clock.advance(DAY);
    const admin = await passwordToken(rig.h.baseUrl, 'account');
    const list = await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/', admin);
    expect(list.body.results[0].invitation_status).toBe('EXPIRED');
    const page = await fetchPage(link);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This invitation is expired.');
  });

  it('paginates with absolute links', async () => {
    for (const name of ['a', 'b', 'c']) {
      await invite(`${name}@demo.test`);
      rig.h.clock.advance(1000);
    }
    const res = await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/?limit=2&offset=1', rig.admin);
    expect(res.body.count).toBe(3);
    expect(res.body.results.map((i: { email: string }) => i.email)).toEqual(['b@demo.test', 'c@demo.test']);
    expect(res.body.previous).toBe(`${rig.h.baseUrl}/v1/userinvitations/?limit=2&offset=0`);
    expect(res.body.next).toBeNull();
  });
});

describe('PATCH /v1/userinvitations/<id>/ (resend)', () => {
  it('mails a fresh link with the new expiry; the old link stops working; an expired one reopens', async () => {
    const created = await invite('frank@demo.test', rig.admin, inFuture(DAY));
    const oldLink = (await latestMail(rig.h.baseUrl, 'frank@demo.test')).link;
    rig.h.clock.advance(2 * DAY);
    const admin = await passwordToken(rig.h.baseUrl, 'account');
    const expire = inFuture(5 * DAY);
    const res = await call(rig.h.baseUrl, 'PATCH', `/v1/userinvitations/${created.body.id}/`, admin, {
      expire_date: expire,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.body.id,
      email: 'frank@demo.test',
      expire_date: expire,
      invitation_status: 'OPEN',
    });
    expect(res.body.updated).toBe(new Date(rig.h.clock.now()).toISOString());
    const newLink = (await latestMail(rig.h.baseUrl, 'frank@demo.test')).link;
    expect(newLink).not.toBe(oldLink);
    expect((await fetchPage(oldLink)).status).toBe(404);
    expect((await fetchPage(newLink)).status).toBe(200);
    const mails = await call(rig.h.baseUrl, 'GET', '/_emulator/mail?to=frank@demo.test', undefined);
    expect(mails.body.count).toBe(2);
  });

  it('refuses other fields, a still-expired invitation, and is 404 across organizations', async () => {
    const created = await invite('gina@demo.test', rig.admin, inFuture(DAY));
    const path = `/v1/userinvitations/${created.body.id}/`;
    const extra = await call(rig.h.baseUrl, 'PATCH', path, rig.admin, { roles: ['admin'] });
    expect(extra.body).toMatchObject({
      field: 'roles',
      rule: 'is not changeable; only email, expire_date may be sent',
    });
    rig.h.clock.advance(2 * DAY);
    const stale = await call(rig.h.baseUrl, 'PATCH', path, await passwordToken(rig.h.baseUrl, 'account'), {});
    expect(stale.body).toMatchObject({
      field: 'expire_date',
      rule: 'must lie in the future: the invitation expired, send a new expire_date',
    });
    const other = await clientToken(rig.h.baseUrl, OTHER_CLIENT, DEMO.otherAdmin);
    const foreign = await call(rig.h.baseUrl, 'PATCH', path, other, { expire_date: inFuture(DAY) });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'not_found', message: `invitation ${created.body.id} not found` });
    expect((await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/', other)).body.count).toBe(0);
  });
});

describe('the acceptance form and CSRF', () => {
  it('accepts a POST only with the CSRF token of a form this browser was shown', async () => {
    await invite('csrf@demo.test');
    const { link } = await latestMail(rig.h.baseUrl, 'csrf@demo.test');
    const token = new URL(link).searchParams.get('token')!;
    const fields = { token, first_name: 'Cy', last_name: 'Surf', password: 'cy-password' };
    const form = await openInvitationForm(link);
    const other = await openInvitationForm(link);
    const refused = [
      await postInvitationForm(rig.h.baseUrl, fields),
      await postInvitationForm(rig.h.baseUrl, fields, { csrfToken: form.csrfToken }),
      await postInvitationForm(rig.h.baseUrl, fields, { cookie: form.cookie }),
      await postInvitationForm(rig.h.baseUrl, fields, { cookie: form.cookie, csrfToken: other.csrfToken }),
      await postInvitationForm(rig.h.baseUrl, fields, {
        cookie: form.cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
        csrfToken: form.csrfToken,
      }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.text).toContain('The form was not sent from this page or has expired.');
    }
    const list = await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/', rig.admin);
    expect(list.body.results[0].invitation_status).toBe('OPEN');
    const accepted = await postInvitationForm(rig.h.baseUrl, fields, form);
    expect([accepted.status, accepted.text]).toEqual([200, expect.stringContaining('You joined')]);
  });
});

describe('/_emulator/mail', () => {
  it('answers JSON newest first and an HTML page for browsers', async () => {
    await invite('h1@demo.test');
    await invite('h2@demo.test');
    const json = await call(rig.h.baseUrl, 'GET', '/_emulator/mail?limit=1', undefined);
    expect(json.body.count).toBe(2);
    expect(json.body.results[0]).toMatchObject({
      to: 'h2@demo.test',
      subject: 'You are invited to Demo Org on PrintRelay',
    });
    expect(json.body.next).toBe(`${rig.h.baseUrl}/_emulator/mail?limit=1&offset=1`);
    const html = await fetchPage(`${rig.h.baseUrl}/_emulator/mail`);
    expect(html.contentType).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('<strong>h1@demo.test</strong>');
    expect(html.text).toContain('2 mail(s). Nothing here is ever sent.');
  });
});

const haveChromium = peersAvailable('chromium');

describe.skipIf(!haveChromium)('acceptance page in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('a new user sets a password and joins; the invitation is ACCEPTED and cannot be resent', async () => {
    const created = await invite('ivy@demo.test');
    const { link } = await latestMail(rig.h.baseUrl, 'ivy@demo.test');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('First name').fill('Ivy');
    await page.getByLabel('Last name').fill('Green');
    await page.getByLabel('Choose a password').fill('short');
    await page.getByLabel('Choose a password').evaluate((el) => el.removeAttribute('minlength'));
    await page.getByRole('button', { name: 'Join Demo Org' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('password: must have at least 8 characters');
    await page.getByLabel('Choose a password').fill('ivy-password');
    await page.getByRole('button', { name: 'Join Demo Org' }).click();
    expect(await page.getByRole('status').textContent()).toBe('You joined Demo Org.');
    await context.close();

    const list = await call(rig.h.baseUrl, 'GET', '/v1/userinvitations/', rig.admin);
    expect(list.body.results[0].invitation_status).toBe('ACCEPTED');
    const token = await clientToken(rig.h.baseUrl, DEMO.client, {
      email: 'ivy@demo.test',
      password: 'ivy-password',
    });
    const me = await call(rig.h.baseUrl, 'GET', '/v1/users/me/', token);
    expect(me.body).toMatchObject({
      email: 'ivy@demo.test',
      first_name: 'Ivy',
      last_name: 'Green',
      roles: ['user'],
    });
    const resend = await call(
      rig.h.baseUrl,
      'PATCH',
      `/v1/userinvitations/${created.body.id}/`,
      rig.admin,
      {},
    );
    expect(resend.status).toBe(409);
    expect(resend.body.error).toBe('invitation_accepted');
    expect((await fetchPage(link)).status).toBe(410);
  });

  it('an existing user of another organization confirms with their password and becomes a member', async () => {
    await invite(DEMO.otherAdmin.email);
    const { link } = await latestMail(rig.h.baseUrl, DEMO.otherAdmin.email);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Join Demo Org' }).click();
    expect(await page.getByRole('alert').textContent()).toBe(
      'password: does not match the existing account of this address',
    );
    await page.getByLabel('Password').fill(DEMO.otherAdmin.password);
    await page.getByRole('button', { name: 'Join Demo Org' }).click();
    expect(await page.getByRole('status').textContent()).toBe('You joined Demo Org.');
    await context.close();
    const users = await call(rig.h.baseUrl, 'GET', `/v1/users/${rig.otherAdminId}/`, rig.admin);
    expect(users.body).toMatchObject({ email: DEMO.otherAdmin.email, roles: ['user'] });
    // Its home stays Other Org: its Other Org token still works and still sees only Other Org there.
    const own = await call(rig.h.baseUrl, 'GET', '/v1/users/', rig.other);
    expect(own.body.results.map((u: { id: string }) => u.id)).toEqual([rig.otherAdminId]);
  });
});

/** GET of a page as a browser would (Accept text/html): status, content type and text. */
async function fetchPage(url: string): Promise<{ status: number; contentType: string; text: string }> {
  const res = await request(url, { headers: { accept: 'text/html' } });
  return {
    status: res.statusCode,
    contentType: String(res.headers['content-type']),
    text: await res.body.text(),
  };
}
