import { describe, expect, it } from 'vitest';
import { renderConsentPage } from '../../../../src/emulator/web/consent-page.js';
import { renderErrorPage } from '../../../../src/emulator/web/error-page.js';
import { escapeHtml, html, raw } from '../../../../src/emulator/web/html.js';
import { renderPairingDonePage, renderPairingPage } from '../../../../src/emulator/web/pairing-page.js';
import { describeScope } from '../../../../src/emulator/web/scope-words.js';
import { renderSignInPage } from '../../../../src/emulator/web/sign-in-page.js';

const hostile = `<script>alert("x")</script>'&\``;
const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;&#96;';
const client = { name: 'Acme <Print>', externalDescription: 'Prints "everything" & more' };

/** Every <label for=...> id, and every element id, of a page. */
function labelTargets(page: string): { labels: string[]; ids: string[] } {
  const labels = [...page.matchAll(/<label for="([^"]+)">/g)].map((m) => m[1] ?? '');
  const ids = [...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1] ?? '');
  return { labels, ids };
}

/** The attributes of the input with the given name. */
function input(page: string, name: string): string {
  const match = new RegExp(`<input[^>]* name="${name}"[^>]*>`).exec(page);
  if (!match) throw new Error(`no input named ${name}`);
  return match[0];
}

function expectSelfContained(page: string): void {
  expect(page.startsWith('<!doctype html>')).toBe(true);
  expect(page).toContain('<html lang="en">');
  expect(page).not.toMatch(/<script|<link|\ssrc=|https?:\/\//);
}

describe('html escaping', () => {
  it.each([
    ['<', '&lt;'],
    ['>', '&gt;'],
    ['&', '&amp;'],
    ['"', '&quot;'],
    ["'", '&#39;'],
    ['`', '&#96;'],
    ['plain text', 'plain text'],
    [hostile, escaped],
  ])('%j -> %j', (text, expected) => {
    expect(escapeHtml(text)).toBe(expected);
  });
  it('escapes values in templates, keeps nested fragments and skips empty values', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(
      html`<p title="${'"x"'}">${inner}${undefined}${null}${false}${[1, '<', raw('<br>')]}</p>`.value,
    ).toBe('<p title="&quot;x&quot;"><b>&lt;i&gt;</b>1&lt;<br></p>');
  });
});

describe('sign-in page', () => {
  const page = renderSignInPage({
    action: '/oauth/authorize/sign-in',
    csrfToken: 'csrf"123',
    client,
    email: hostile,
    error: 'Wrong email or password.',
    carry: { client_id: 'abc', state: '"><x', scope: undefined },
  });
  it('is a self-contained document', () => expectSelfContained(page));
  it('shows the client name and description escaped', () => {
    expect(page).toContain('Acme &lt;Print&gt;');
    expect(page).toContain('Prints &quot;everything&quot; &amp; more');
    expect(page).not.toContain('<Print>');
  });
  it('has labelled email and password fields', () => {
    const { labels, ids } = labelTargets(page);
    expect(labels).toEqual(['email', 'password']);
    for (const label of labels) expect(ids).toContain(label);
    expect(page).toMatch(/<label for="email">Email<input/);
    expect(page).toMatch(/<label for="password">Password<input/);
    expect(input(page, 'password')).toContain('type="password"');
    expect(input(page, 'password')).not.toContain('value=');
  });
  it('carries the CSRF token and request parameters escaped', () => {
    expect(input(page, 'csrf_token')).toBe('<input type="hidden" name="csrf_token" value="csrf&quot;123">');
    expect(input(page, 'client_id')).toContain('value="abc"');
    expect(input(page, 'state')).toContain('value="&quot;&gt;&lt;x"');
    expect(page).not.toContain('name="scope"');
  });
  it('prefills the email escaped and shows the error as an alert', () => {
    expect(input(page, 'email')).toContain(`value="${escaped}"`);
    expect(page).toContain('<p class="error" role="alert">Wrong email or password.</p>');
    expect(page).not.toContain('<script>');
  });
  it('posts to the action with a submit button', () => {
    expect(page).toContain('<form method="post" action="/oauth/authorize/sign-in">');
    expect(page).toContain('<button type="submit">Sign in</button>');
  });
});

describe('consent page', () => {
  const page = renderConsentPage({
    action: '/oauth/authorize/consent',
    csrfToken: 'tok',
    client,
    scopes: ['printing', 'webhooks.readonly', 'printing.files', 'cloud.x'],
    userEmail: 'ann@example.com',
    carry: { client_id: 'abc' },
  });
  it('is a self-contained document', () => expectSelfContained(page));
  it('names the client and the signed-in user', () => {
    expect(page).toContain('<title>Allow Acme &lt;Print&gt;? - PrintRelay</title>');
    expect(page).toContain('Signed in as <strong>ann@example.com</strong>');
    expect(page).toContain('Prints &quot;everything&quot; &amp; more');
  });
  it('lists every scope in plain words', () => {
    expect(page).toContain(
      '<li data-scope="printing">Send documents to your printers and see their status</li>',
    );
    expect(page).toContain('<li data-scope="webhooks.readonly">See the webhooks of your organization</li>');
    expect(page).toContain('(printing.files)');
    expect(page).toContain('Use your cloud storage profile (cloud.x)');
  });
  it('has approve and deny buttons and the CSRF token', () => {
    expect(page).toContain('<button type="submit" name="decision" value="approve">Approve</button>');
    expect(page).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    expect(input(page, 'csrf_token')).toContain('value="tok"');
  });
});

describe('scope words', () => {
  it.each([
    ['printing', 'Send documents to your printers and see their status'],
    ['printing.connectors', 'Run a print connector that receives print jobs for your organization'],
    ['account', 'See and change your account details'],
    ['email', 'See your email address'],
    ['reporting.daily', 'Read printing reports of your organization (reporting.daily)'],
    ['other', 'Access: other'],
  ])('%s', (scope, words) => {
    expect(describeScope(scope)).toBe(words);
  });
});

describe('pairing pages', () => {
  const page = renderPairingPage({
    action: '/oauth/authorize/pairing/',
    csrfToken: 'c',
    pairingCode: 'AB12CD34EF',
    client: { name: 'Kiosk' },
  });
  it('is a self-contained document', () => expectSelfContained(page));
  it('shows the pairing code being bound and posts it', () => {
    expect(page).toContain('<p class="code" id="pairing-code" aria-label="Pairing code">AB12CD34EF</p>');
    expect(input(page, 'pairing_code')).toContain('value="AB12CD34EF"');
    expect(labelTargets(page).labels).toEqual(['email', 'password']);
    expect(page).toContain('Sign in and connect device');
  });
  it('escapes a hostile pairing code', () => {
    const bad = renderPairingPage({ action: '/p', csrfToken: 'c', pairingCode: hostile });
    expect(bad).not.toContain('<script>');
    expect(bad).toContain(escaped);
  });
  it('confirms the bound code', () => {
    const done = renderPairingDonePage({ pairingCode: 'AB12CD34EF' });
    expectSelfContained(done);
    expect(done).toContain('role="status"');
    expect(done).toContain('AB12CD34EF');
  });
});

describe('error page', () => {
  it('shows the message and code escaped, as an alert', () => {
    const page = renderErrorPage({
      title: 'Invalid redirect URI',
      message: hostile,
      error: 'invalid_request',
    });
    expectSelfContained(page);
    expect(page).toContain(`<p class="error" role="alert">${escaped}</p>`);
    expect(page).toContain('<code>invalid_request</code>');
    expect(page).toContain('<h1>Invalid redirect URI</h1>');
  });
  it('leaves out the code when none is given', () => {
    expect(renderErrorPage({ title: 'Oops', message: 'm' })).not.toContain('<code>');
  });
});
