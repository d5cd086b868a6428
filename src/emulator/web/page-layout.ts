/**
 * The shared frame of every emulator page: doctype, language, viewport, title, one small inline
 * style sheet (no external assets) and a main landmark. Pure; nothing to clean up.
 */
import { type SafeHtml, html, raw } from './html.js';

/** The one style sheet of the sign-in, consent, pairing and error pages. */
export const PAGE_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; display: flex; justify-content: center; padding: 2rem 1rem; }
main { max-width: 28rem; width: 100%; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
.client { border-left: 4px solid #2a6df4; padding: 0.25rem 0.75rem; margin-bottom: 1rem; }
.client p { margin: 0.25rem 0 0; white-space: pre-line; }
form { display: grid; gap: 0.75rem; }
label { display: grid; gap: 0.25rem; font-weight: 600; }
input[type=email], input[type=password], input[type=text] { font: inherit; padding: 0.5rem; }
button { font: inherit; padding: 0.6rem 1rem; cursor: pointer; }
.actions { display: flex; gap: 0.75rem; }
.error { color: #b00020; border: 1px solid currentColor; padding: 0.5rem 0.75rem; }
.code { font-family: ui-monospace, monospace; font-size: 1.5rem; letter-spacing: 0.15em; }
ul.scopes { padding-left: 1.25rem; }
`;

/** What a page puts into the frame. */
export interface PageContent {
  title: string;
  body: SafeHtml;
}

/** Renders a complete HTML document around the body, with the shared CSS inline. */
export function renderPage(content: PageContent): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${content.title} - PrintRelay</title>
<style>${raw(PAGE_CSS)}</style>
</head>
<body>
<main>
<h1>${content.title}</h1>
${content.body}
</main>
</body>
</html>
`.value;
}

/** An alert box for a form error, or nothing. */
export function errorNotice(message: string | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}

/** The client's name and description as shown above sign-in and consent forms. */
export function clientCard(client: { name: string; externalDescription?: string }): SafeHtml {
  const description = client.externalDescription ? html`<p>${client.externalDescription}</p>` : html``;
  return html`<section class="client" aria-label="Application"><strong>${client.name}</strong>${description}</section>`;
}
