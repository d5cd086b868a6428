/**
 * The sign-in page of /oauth/authorize: email and password fields, the CSRF token, the client's
 * name and description, and hidden fields that carry the authorization request through the
 * post. Pure; nothing to clean up.
 */
import { html, hiddenFields } from './html.js';
import { clientCard, errorNotice, renderPage } from './page-layout.js';

/** The client as sign-in and consent pages show it. */
export interface PageClient {
  name: string;
  externalDescription?: string;
}

/** Data of the sign-in page. */
export interface SignInPageData {
  /** Where the form posts (a path of the emulator). */
  action: string;
  csrfToken: string;
  client: PageClient;
  /** Email to prefill after a failed attempt; the password is never echoed. */
  email?: string;
  error?: string;
  /** Request parameters carried through the post (client_id, redirect_uri, state, ...). */
  carry?: Readonly<Record<string, string | undefined>>;
}

/** Renders the sign-in page as a complete HTML document. */
export function renderSignInPage(data: SignInPageData): string {
  const body = html`${clientCard(data.client)}
<p>Sign in to continue to ${data.client.name}.</p>
${errorNotice(data.error)}
<form method="post" action="${data.action}">
<input type="hidden" name="csrf_token" value="${data.csrfToken}">
${hiddenFields(data.carry ?? {})}
<label for="email">Email<input id="email" name="email" type="email" autocomplete="username" required value="${data.email ?? ''}"></label>
<label for="password">Password<input id="password" name="password" type="password" autocomplete="current-password" required></label>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`;
  return renderPage({ title: 'Sign in', body });
}
