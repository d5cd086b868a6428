/**
 * The HTML view of the mail outbox: one article per mail (recipient, subject, time, text and
 * its link), newest first, with links to the neighbouring pages. Pure; nothing to clean up.
 */
import { html } from './html.js';
import { renderPage } from './page-layout.js';

/** A mail as the outbox JSON gives it. */
interface MailEntry {
  to: unknown;
  subject: unknown;
  body: unknown;
  link: unknown;
  created: unknown;
}

/** Renders one page of the outbox. */
export function renderMailPage(page: {
  count: number;
  next: string | null;
  previous: string | null;
  results: Record<string, unknown>[];
}): string {
  const mails = page.results.map((raw) => {
    const m = raw as unknown as MailEntry;
    const link = typeof m.link === 'string' ? html`<p><a href="${m.link}">${m.link}</a></p>` : html``;
    return html`<article class="mail">
<h2>${String(m.subject)}</h2>
<p>To <strong>${String(m.to)}</strong>, ${String(m.created)}</p>
<pre>${String(m.body)}</pre>
${link}
</article>`;
  });
  const nav = html`<p>${page.previous ? html`<a href="${page.previous}">Newer</a> ` : ''}${page.next ? html`<a href="${page.next}">Older</a>` : ''}</p>`;
  const empty = page.count === 0 ? html`<p>No mail yet.</p>` : html``;
  const body = html`<p>${page.count} mail(s). Nothing here is ever sent.</p>${empty}${mails}${nav}`;
  return renderPage({ title: 'Mail outbox', body });
}
