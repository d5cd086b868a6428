/**
 * Pages of the pairing-code grant (field notes): the sign-in page that binds a device's pairing
 * code to the person signing in, showing the code so they can compare it with the device, and
 * the confirmation shown once the code is bound. Pure; nothing to clean up.
 */
import { html, hiddenFields } from './html.js';
import { clientCard, errorNotice, renderPage } from './page-layout.js';
import { describeScope } from './scope-words.js';
import type { PageClient } from './sign-in-page.js';

/** Data of the pairing sign-in page. */
export interface PairingPageData {
  action: string;
  csrfToken: string;
  pairingCode: string;
  /** The device's client, when known. */
  client?: PageClient;
  email?: string;
  error?: string;
  carry?: Readonly<Record<string, string | undefined>>;
}

/** Renders the pairing sign-in page; the form posts email, password, csrf_token and pairing_code. */
export function renderPairingPage(data: PairingPageData): string {
  const card = data.client ? clientCard(data.client) : html``;
  const body = html`${card}
<p>Sign in to connect the device showing this code:</p>
<p class="code" id="pairing-code" aria-label="Pairing code">${data.pairingCode}</p>
${errorNotice(data.error)}
<form method="post" action="${data.action}">
<input type="hidden" name="csrf_token" value="${data.csrfToken}">
<input type="hidden" name="pairing_code" value="${data.pairingCode}">
${hiddenFields(data.carry ?? {})}
<label for="email">Email<input id="email" name="email" type="email" autocomplete="username" required value="${data.email ?? ''}"></label>
<label for="password">Password<input id="password" name="password" type="password" autocomplete="current-password" required></label>
<div class="actions"><button type="submit">Sign in and connect device</button></div>
</form>`;
  return renderPage({ title: 'Connect a device', body });
}

/** Renders the confirmation after the pairing code was bound; the device may now fetch its token. */
export function renderPairingDonePage(data: { pairingCode: string; client?: PageClient }): string {
  const card = data.client ? clientCard(data.client) : html``;
  const body = html`${card}
<p role="status">The device with code <span class="code">${data.pairingCode}</span> is now connected to your account. You can close this page.</p>`;
  return renderPage({ title: 'Device connected', body });
}

/** Data of the pairing confirmation page (the person is already signed in). */
export interface PairingConfirmPageData {
  action: string;
  csrfToken: string;
  pairingCode: string;
  client?: PageClient;
  /** Who is signed in: the account the device will act for. */
  userEmail: string;
  /** Scopes the device asked for, already validated. */
  scopes: readonly string[];
}

/** Renders the confirmation for a signed-in person: Connect (decision=approve) or Deny. */
export function renderPairingConfirmPage(data: PairingConfirmPageData): string {
  const card = data.client ? clientCard(data.client) : html``;
  const items = data.scopes.map((scope) => html`<li data-scope="${scope}">${describeScope(scope)}</li>`);
  const body = html`${card}
<p>Signed in as <strong>${data.userEmail}</strong>.</p>
<p>Connect the device showing this code to your account?</p>
<p class="code" id="pairing-code" aria-label="Pairing code">${data.pairingCode}</p>
<p id="scopes-heading">The device will be able to:</p>
<ul class="scopes" aria-labelledby="scopes-heading">${items}</ul>
<form method="post" action="${data.action}">
<input type="hidden" name="csrf_token" value="${data.csrfToken}">
<input type="hidden" name="pairing_code" value="${data.pairingCode}">
<div class="actions">
<button type="submit" name="decision" value="approve">Connect device</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`;
  return renderPage({ title: 'Connect a device', body });
}

/** Renders the page shown after the person denied a pairing. */
export function renderPairingDeniedPage(data: { pairingCode: string }): string {
  const body = html`<p role="status">The device with code <span class="code">${data.pairingCode}</span> was not connected. You can close this page.</p>`;
  return renderPage({ title: 'Device not connected', body });
}
