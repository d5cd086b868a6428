/**
 * The invitation acceptance page: a new user enters names and a password; an existing account
 * confirms with its password. Also the page after acceptance and the page of an unusable link.
 * Pure; nothing to clean up.
 */
import { html } from './html.js';
import { errorNotice, renderPage } from './page-layout.js';

/** Data of the acceptance form. */
export interface InvitationFormData {
  action: string;
  token: string;
  /** The form's CSRF token (http/form-csrf.ts). */
  csrfToken: string;
  organizationName: string;
  email: string;
  /** True when an account of this address exists: only its password is asked. */
  existingAccount: boolean;
  firstName: string;
  lastName: string;
  minPasswordLength: number;
  error?: string;
}

/** Renders the acceptance form. */
export function renderInvitationForm(data: InvitationFormData): string {
  const fields = data.existingAccount
    ? html`<p>An account for <strong>${data.email}</strong> exists. Enter its password to join.</p>
<label for="password">Password<input id="password" name="password" type="password" autocomplete="current-password" required></label>`
    : html`<label for="first_name">First name<input id="first_name" name="first_name" type="text" required value="${data.firstName}"></label>
<label for="last_name">Last name<input id="last_name" name="last_name" type="text" value="${data.lastName}"></label>
<label for="password">Choose a password<input id="password" name="password" type="password" autocomplete="new-password" minlength="${data.minPasswordLength}" required></label>`;
  const body = html`<p>You are invited to join <strong>${data.organizationName}</strong> as ${data.email}.</p>
${errorNotice(data.error)}
<form method="post" action="${data.action}">
<input type="hidden" name="token" value="${data.token}">
<input type="hidden" name="csrf_token" value="${data.csrfToken}">
${fields}
<div class="actions"><button type="submit">Join ${data.organizationName}</button></div>
</form>`;
  return renderPage({ title: 'Accept invitation', body });
}

/** The page after a successful acceptance. */
export function renderInvitationAccepted(organizationName: string, email: string): string {
  const body = html`<p role="status">You joined <strong>${organizationName}</strong>.</p>
<p>Sign in to your applications as ${email}.</p>`;
  return renderPage({ title: 'Welcome', body });
}

/** The page of a link that cannot be used (unknown, replaced by a resend, expired or used). */
export function renderInvitationUnusable(message: string): string {
  const body = html`<p class="error" role="alert">${message}</p>
<p>Ask the organization's administrator to send the invitation again.</p>`;
  return renderPage({ title: 'Invitation not usable', body });
}
