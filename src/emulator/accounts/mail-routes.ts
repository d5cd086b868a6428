/**
 * GET /_emulator/mail: the developer's view of the mail outbox (invitations and partner
 * e-mails; nothing is ever sent). JSON envelope `{ count, next, previous, results }` newest
 * first, optional `to=` filter; a browser (Accept: text/html, not JSON) gets a small HTML list.
 * Not part of the emulated cloud. Who may read it (docs/security.md):
 * - a loopback client (the developer on the emulator's machine) without forwarding headers:
 *   every mail;
 * - anyone else only with a bearer token (`account` scope) of an organization admin: that
 *   organization's mails; no token 401, a token of a non-admin 403.
 */
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../lib/errors.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import { authenticateRequest } from './bearer-auth.js';
import { envelope, parsePage } from '../http/pagination.js';
import { renderMailPage } from '../web/mail-page.js';
import type { Mail, MailFilter, MailOutbox } from './mail-outbox.js';
import { mailSchema } from './account-schemas.js';
import { operation } from '../http/schemas.js';

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

/**
 * True for a request from this machine's loopback interface that no proxy forwarded (a proxy on
 * loopback would otherwise make every remote client look local).
 */
export function isLocalDeveloper(request: FastifyRequest): boolean {
  const headers = request.headers;
  if (headers.forwarded !== undefined || headers['x-forwarded-for'] !== undefined) return false;
  const address = (request.socket.remoteAddress ?? '').replace(/^::ffff:/i, '');
  if (address === '::1') return true;
  return isIP(address) === 4 && address.startsWith('127.');
}

/** The mails this reader may see: all for a local developer, else its organization's (admins only). */
async function readerFilter(request: FastifyRequest): Promise<MailFilter> {
  if (isLocalDeveloper(request)) return {};
  const auth = await authenticateRequest(request, [REQUIRED_SCOPE.account]);
  if (!auth.roles.includes('admin'))
    throw new ForbiddenError(
      'the mail outbox needs the admin role of the organization (or a loopback client)',
    );
  return { organizationId: auth.organizationId };
}

/** What the outbox route uses. */
export interface MailRouteContext {
  mail: MailOutbox;
  baseUrl: BaseUrlPolicy;
}

/** Registers the outbox route. */
export const mailRoutes: RoutePlugin<MailRouteContext> = async (app, { context }) => {
  const { mail, baseUrl } = context;
  app.get(
    '/_emulator/mail',
    { schema: operation('ListEmulatorMail', mailSchema) },
    async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const to = typeof query['to'] === 'string' && query['to'] !== '' ? query['to'] : undefined;
      const filter = { ...(await readerFilter(request)), to };
      const page = parsePage(query);
      const mails = mail.list(page.limit, page.offset, filter);
      const body = envelope(request, baseUrl, page, mail.count(filter), mails.map(mailResource));
      if (!wantsHtml(request)) return body;
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(renderMailPage(body));
    },
  );
};
