/**
 * The error page shown when the emulator must not redirect back to the client (unknown client,
 * missing or unregistered redirect_uri: RFC 6749 section 4.1.2.1 forbids redirecting then), and
 * for other sign-in failures. Pure; nothing to clean up.
 */
import { html } from './html.js';
import { renderPage } from './page-layout.js';

/** Data of the error page. */
export interface ErrorPageData {
  /** Short heading, such as "Invalid redirect URI". */
  title: string;
  /** What went wrong, in plain words; never secrets. */
  message: string;
  /** OAuth error code, shown for developers (for example invalid_request). */
  error?: string;
}

/** Renders the error page; the caller sends it with a 4xx status. */
export function renderErrorPage(data: ErrorPageData): string {
  const code = data.error ? html`<p>Error code: <code>${data.error}</code></p>` : html``;
  const body = html`<p class="error" role="alert">${data.message}</p>
${code}
<p>The application that sent you here is misconfigured. You can close this page.</p>`;
  return renderPage({ title: data.title, body });
}
