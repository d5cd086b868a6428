/**
 * The consent page of /oauth/authorize: which application asks, what it may do (each requested
 * scope in plain words), and Approve / Deny buttons posting the decision with the CSRF token.
 * API-created clients are never trusted, so the emulator always shows it. Pure.
 */
import { html, hiddenFields } from './html.js';
import { clientCard, errorNotice, renderPage } from './page-layout.js';
import { describeScope } from './scope-words.js';
import type { PageClient } from './sign-in-page.js';

/** Data of the consent page. */
export interface ConsentPageData {
  action: string;
  csrfToken: string;
  client: PageClient;
  /** Requested scopes, already validated against the client. */
  scopes: readonly string[];
  /** Who is signed in, shown so they know which account grants access. */
  userEmail?: string;
  error?: string;
  carry?: Readonly<Record<string, string | undefined>>;
}

/** Renders the consent page; the buttons submit decision=approve or decision=deny. */
export function renderConsentPage(data: ConsentPageData): string {
  const items = data.scopes.map((scope) => html`<li data-scope="${scope}">${describeScope(scope)}</li>`);
  const who = data.userEmail ? html`<p>Signed in as <strong>${data.userEmail}</strong>.</p>` : html``;
  const body = html`${clientCard(data.client)}
${who}
${errorNotice(data.error)}
<p id="scopes-heading">${data.client.name} wants to:</p>
<ul class="scopes" aria-labelledby="scopes-heading">${items}</ul>
<form method="post" action="${data.action}">
<input type="hidden" name="csrf_token" value="${data.csrfToken}">
${hiddenFields(data.carry ?? {})}
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`;
  return renderPage({ title: `Allow ${data.client.name}?`, body });
}
