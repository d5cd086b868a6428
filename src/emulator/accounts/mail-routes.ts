/**
 * GET /_emulator/mail: the developer's view of the mail outbox (invitations and partner
 * e-mails; nothing is ever sent). JSON envelope `{ count, next, previous, results }` newest
 * first, optional `to=` filter; a browser (Accept: text/html, not JSON) gets a small HTML list.
 * Not part of the emulated cloud: no token, like the rest of /_emulator/.
 */
import type { FastifyRequest } from 'fastify';
import type { EmulatorRoutePlugin } from '../context.js';
import { envelope, parsePage } from '../http/pagination.js';
import { renderMailPage } from '../web/mail-page.js';
import type { Mail } from './mail-outbox.js';
import { mailSchema } from './account-schemas.js';

/** The wire form of a mail. */
export function mailResource(mail: Mail): Record<string, unknown> {
  return {
    id: mail.id,
    to: mail.to,
    subject: mail.subject,
    body: mail.body,
    link: mail.link,
    created: new Date(mail.createdAt).toISOString(),
  };
}

function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html') && !accept.includes('application/json');
}

/** Registers the outbox route. */
export const mailRoutes: EmulatorRoutePlugin = async (app, { context }) => {
  const { mail, baseUrl } = context;
  app.get('/_emulator/mail', { schema: mailSchema }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const to = typeof query['to'] === 'string' && query['to'] !== '' ? query['to'] : undefined;
    const page = parsePage(query);
    const mails = mail.list(page.limit, page.offset, to);
    const body = envelope(request, baseUrl, page, mail.count(to), mails.map(mailResource));
    if (!wantsHtml(request)) return body;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(renderMailPage(body));
  });
};
