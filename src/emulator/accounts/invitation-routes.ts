/**
 * Invitations of the caller's organization ({auth_url}, admin only, `account` scope):
 *   POST  /v1/userinvitations/        email, expire_date (required) -> 201 invitation, link mailed
 *   GET   /v1/userinvitations/        paginated invitations, oldest first
 *   PATCH /v1/userinvitations/<id>/   optional email, expire_date -> resent with a fresh link
 * and the browser page of the mailed link:
 *   GET  /accounts/invitation?token=  the acceptance form (404/410 page when not usable)
 *   POST /accounts/invitation         form fields token, csrf_token, first_name, last_name, password
 * The form carries a CSRF token matched against a signed cookie (http/form-csrf.ts); a POST
 * without it gets a 403 page and changes nothing.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GoneError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import { requireScopes } from './bearer-auth.js';
import { CSRF_FIELD, checkFormCsrf, issueFormCsrf } from '../http/form-csrf.js';
import { envelope, parsePage, requestBaseUrl } from '../http/pagination.js';
import { renderErrorPage } from '../web/error-page.js';
import {
  renderInvitationAccepted,
  renderInvitationForm,
  renderInvitationUnusable,
} from '../web/invitation-page.js';
import { requireAccountAdmin } from './account-user-routes.js';
import { invitationPageSchema, accountRequests, invitationSchemas } from './account-schemas.js';
import {
  type AcceptanceForm,
  INVITATION_PAGE_PATH,
  type InvitationService,
  MIN_PASSWORD_LENGTH,
} from './invitation-service.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };

/** What the invitation API and the acceptance page use. */
export interface InvitationRouteContext {
  invitations: InvitationService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the invitation API and the acceptance page. */
export const invitationRoutes: RoutePlugin<InvitationRouteContext> = async (app, { context }) => {
  const { invitations, baseUrl } = context;
  const auth = { preHandler: [requireScopes(REQUIRED_SCOPE.account), requireAccountAdmin('invitations')] };
  const base = (request: FastifyRequest) => requestBaseUrl(request, baseUrl);

  app.post(
    '/v1/userinvitations',
    {
      ...auth,
      schema: operation('CreateInvitation', invitationSchemas.create, accountRequests.createInvitation),
    },
    async (request, reply) => {
      const invitee = invitations.parseNew(request.body);
      const inv = invitations.invite(request.auth.organizationId, invitee, base(request));
      return reply.status(201).send(invitations.resource(inv));
    },
  );

  app.get(
    '/v1/userinvitations',
    { ...auth, schema: operation('ListInvitations', invitationSchemas.list) },
    async (request) => {
      const page = parsePage(request.query as Record<string, unknown>);
      const { count, results } = invitations.list(request.auth.organizationId, page.limit, page.offset);
      return envelope(request, baseUrl, page, count, results);
    },
  );

  app.patch<IdParams>(
    '/v1/userinvitations/:id',
    {
      ...auth,
      schema: operation('ResendInvitation', invitationSchemas.resend, accountRequests.resendInvitation),
    },
    async (request) => {
      const inv = invitations.resend(
        request.auth.organizationId,
        request.params.id,
        request.body ?? {},
        base(request),
      );
      return invitations.resource(inv);
    },
  );

  app.get(
    INVITATION_PAGE_PATH,
    { schema: operation('ShowInvitationPage', invitationPageSchema, accountRequests.invitationPage) },
    async (request, reply) => {
      const token = (request.query as Record<string, unknown>)['token'];
      return showForm(request, reply, invitations, typeof token === 'string' ? token : '', undefined);
    },
  );

  app.post(
    INVITATION_PAGE_PATH,
    { schema: operation('AcceptInvitation', invitationPageSchema, accountRequests.acceptInvitation) },
    async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const token = form['token'] ?? '';
      if (!checkFormCsrf(request, form[CSRF_FIELD])) return formExpired(reply);
      const input: AcceptanceForm = {
        firstName: form['first_name'],
        lastName: form['last_name'],
        password: form['password'],
      };
      try {
        const view = invitations.view(token);
        const user = await invitations.accept(token, input, request.ip);
        return page(reply, 200, renderInvitationAccepted(view.organizationName, user.email));
      } catch (error) {
        if (error instanceof ValidationError)
          return showForm(request, reply.status(400), invitations, token, error.message, input);
        if (error instanceof GoneError || error instanceof NotFoundError)
          return showForm(request, reply, invitations, token, undefined);
        throw error;
      }
    },
  );
};

function showForm(
  request: FastifyRequest,
  reply: FastifyReply,
  invitations: InvitationService,
  token: string,
  error: string | undefined,
  typed: AcceptanceForm = {},
) {
  try {
    const { invitation, organizationName, existingUser } = invitations.view(token);
    const status = invitations.status(invitation);
    if (status !== 'OPEN') throw new GoneError(`This invitation is ${status.toLowerCase()}.`);
    const html = renderInvitationForm({
      action: INVITATION_PAGE_PATH,
      token,
      csrfToken: issueFormCsrf(request, reply, INVITATION_PAGE_PATH),
      organizationName,
      email: invitation.email,
      existingAccount: existingUser !== undefined,
      firstName: typed.firstName ?? invitation.firstName,
      lastName: typed.lastName ?? invitation.lastName,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      ...(error === undefined ? {} : { error }),
    });
    return page(reply, reply.statusCode, html);
  } catch (failure) {
    if (failure instanceof NotFoundError)
      return page(
        reply,
        404,
        renderInvitationUnusable('This invitation link is not valid (unknown, or replaced by a newer one).'),
      );
    if (failure instanceof GoneError) return page(reply, 410, renderInvitationUnusable(failure.message));
    throw failure;
  }
}

/** The answer to a POST whose CSRF token is missing or does not match the form's cookie. */
function formExpired(reply: FastifyReply) {
  const html = renderErrorPage({
    title: 'Form expired',
    message: 'The form was not sent from this page or has expired. Open the invitation link again.',
    error: 'invalid_request',
  });
  return page(reply, 403, html);
}

function page(reply: FastifyReply, status: number, body: string) {
  return reply.status(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);
}
