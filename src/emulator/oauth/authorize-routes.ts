/**
 * The browser side of the authorization code grant and the generic sign-in page:
 *  - GET /oauth/authorize: validates the request (services/authorize-request.ts), then the
 *    sign-in page, the consent page (always for clients created through the API; seeded
 *    service clients are trusted) or, when nothing is left to ask, the redirect with code+state;
 *  - POST /oauth/authorize: the sign-in or consent form (CSRF-checked), same outcomes;
 *  - GET/POST /oauth/login/?next=: sign-in, then back to `next` (an /oauth/ path), as the
 *    pairing flow's auth_url uses it.
 * tenant_mode single: a user of another organization gets access_denied at the redirect URI.
 */
import type { FastifyReply } from 'fastify';
import type { Logger } from '../../log/logger.js';
import type { UserSignIn } from '../accounts/user-sign-in.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { AuthorizationCodeService } from './authorization-codes.js';
import {
  type AuthorizeRequest,
  authorizeParams,
  checkAuthorizeRequest,
  denyRedirect,
} from './authorize-request.js';
import type { OAuthRecords } from './oauth-records.js';
import type { BrowserSession, SessionService } from './sessions.js';
import { tenantAllows } from './token-service.js';
import { renderConsentPage } from '../web/consent-page.js';
import { renderErrorPage } from '../web/error-page.js';
import { html as markup } from '../web/html.js';
import { renderPage } from '../web/page-layout.js';
import { renderSignInPage } from '../web/sign-in-page.js';
import { html, pageClient } from './pairing-routes.js';
import { type Form, formFields } from './client-authentication.js';
import { oauthRequests } from './oauth-request-schemas.js';
import { oauthSchemas } from './oauth-schemas.js';
import { operation } from '../http/schemas.js';

const AUTHORIZE_PATH = '/oauth/authorize';
const LOGIN_PATH = '/oauth/login/';
const SIGNED_IN_PATH = '/oauth/login/done/';

/** What /oauth/authorize and /oauth/login/ use: the clients a request names, sign-in, sessions, codes. */
export interface AuthorizeRouteContext {
  records: Pick<OAuthRecords, 'clients'>;
  signIn: UserSignIn;
  sessions: SessionService;
  authorizationCodes: AuthorizationCodeService;
  logger: Logger;
}

/** Registers /oauth/authorize and /oauth/login/. */
export const oauthAuthorizeRoutes: RoutePlugin<AuthorizeRouteContext> = async (app, { context }) => {
  const { sessions } = context;

  app.get(
    AUTHORIZE_PATH,
    { schema: operation('ShowAuthorizePage', oauthSchemas.browserPage, oauthRequests.authorizePage) },
    async (request, reply) => {
      const check = checkAuthorizeRequest(
        context.records,
        authorizeParams(request.query as Record<string, unknown>),
      );
      if (check.kind !== 'ok') return answerCheck(reply, check);
      const session = sessions.open(request, reply);
      if (!session.user) return signInPage(reply, session, check.request, undefined);
      return afterSignIn(reply, context, session, check.request);
    },
  );

  app.post(
    AUTHORIZE_PATH,
    { schema: operation('SubmitConsent', oauthSchemas.browserPage, oauthRequests.consent) },
    async (request, reply) => {
      const form = formFields(request.body);
      const check = checkAuthorizeRequest(context.records, authorizeParams(form));
      if (check.kind !== 'ok') return answerCheck(reply, check);
      let session = sessions.current(request);
      if (!sessions.checkCsrf(session, form['csrf_token'])) return csrfPage(reply);
      if (form['email'] !== undefined || form['password'] !== undefined) {
        const user = await context.signIn.verify(form['email'] ?? '', form['password'] ?? '', request.ip);
        if (!user) return signInPage(reply.status(401), session!, check.request, form['email'], true);
        session = sessions.signIn(request, reply, session, user);
        return afterSignIn(reply, context, session, check.request);
      }
      if (!session?.user) return signInPage(reply, session!, check.request, undefined);
      if (form['decision'] === 'deny') {
        return redirect(reply, denyRedirect(check.request, 'access_denied', 'the user denied the request'));
      }
      if (form['decision'] !== 'approve')
        return consentPage(reply, session, check.request, 'Choose Approve or Deny.');
      return issueCode(reply, context, session, check.request);
    },
  );

  app.get<{ Querystring: { next?: string } }>(
    LOGIN_PATH,
    { schema: operation('ShowSignInPage', oauthSchemas.browserPage, oauthRequests.signInPage) },
    async (request, reply) => {
      const next = safeNext(request.query.next);
      const session = sessions.open(request, reply);
      if (session.user) return redirect(reply, next);
      return loginPage(reply, session, next, undefined);
    },
  );

  app.get(
    SIGNED_IN_PATH,
    { schema: operation('ShowSignedInPage', oauthSchemas.browserPage) },
    async (request, reply) => {
      const who = sessions.current(request)?.user?.email;
      const body = who
        ? markup`<p role="status">Signed in as <strong>${who}</strong>.</p>`
        : markup`<p>Not signed in.</p>`;
      return html(reply, renderPage({ title: 'PrintRelay account', body }));
    },
  );

  app.post(
    LOGIN_PATH,
    { schema: operation('SignIn', oauthSchemas.browserPage, oauthRequests.signIn) },
    async (request, reply) => {
      const form = formFields(request.body);
      const next = safeNext(form['next']);
      const session = sessions.current(request);
      if (!sessions.checkCsrf(session, form['csrf_token'])) return csrfPage(reply);
      const user = await context.signIn.verify(form['email'] ?? '', form['password'] ?? '', request.ip);
      if (!user) return loginPage(reply.status(401), session!, next, form);
      sessions.signIn(request, reply, session, user);
      return redirect(reply, next);
    },
  );
};

function afterSignIn(
  reply: FastifyReply,
  context: AuthorizeRouteContext,
  session: BrowserSession,
  request: AuthorizeRequest,
): FastifyReply {
  if (!tenantAllows(request.client, session.user!)) {
    return redirect(
      reply,
      denyRedirect(request, 'access_denied', 'this application serves only users of its own organization'),
    );
  }
  // Clients created through the API are never trusted: the consent page is always shown.
  if (!request.client.protected) return consentPage(reply, session, request, undefined);
  return issueCode(reply, context, session, request);
}

function issueCode(
  reply: FastifyReply,
  context: AuthorizeRouteContext,
  session: BrowserSession,
  request: AuthorizeRequest,
): FastifyReply {
  const user = session.user!;
  if (!tenantAllows(request.client, user)) {
    return redirect(
      reply,
      denyRedirect(request, 'access_denied', 'this application serves only users of its own organization'),
    );
  }
  const code = context.authorizationCodes.issueCode({
    client: request.client,
    user,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    nonce: request.nonce,
  });
  const url = new URL(request.redirectUri);
  url.searchParams.append('code', code);
  if (request.state !== undefined) url.searchParams.append('state', request.state);
  context.logger.info({ client: request.client.clientId }, 'authorization code issued');
  return redirect(reply, url.href);
}

function signInPage(
  reply: FastifyReply,
  session: BrowserSession,
  request: AuthorizeRequest,
  email: string | undefined,
  failed = false,
): FastifyReply {
  return html(
    reply,
    renderSignInPage({
      action: AUTHORIZE_PATH,
      csrfToken: session.record.csrfToken,
      client: pageClient(request.client),
      carry: request.carry,
      ...(email ? { email } : {}),
      ...(failed ? { error: 'The email or password is wrong.' } : {}),
    }),
  );
}

function consentPage(
  reply: FastifyReply,
  session: BrowserSession,
  request: AuthorizeRequest,
  error: string | undefined,
): FastifyReply {
  return html(
    reply,
    renderConsentPage({
      action: AUTHORIZE_PATH,
      csrfToken: session.record.csrfToken,
      client: pageClient(request.client),
      scopes: request.scopes,
      userEmail: session.user!.email,
      carry: request.carry,
      ...(error ? { error } : {}),
    }),
  );
}

function loginPage(
  reply: FastifyReply,
  session: BrowserSession,
  next: string,
  form: Form | undefined,
): FastifyReply {
  return html(
    reply,
    renderSignInPage({
      action: LOGIN_PATH,
      csrfToken: session.record.csrfToken,
      client: { name: 'PrintRelay', externalDescription: 'Sign in to your PrintRelay account.' },
      carry: { next },
      ...(form?.['email'] ? { email: form['email'] } : {}),
      ...(form ? { error: 'The email or password is wrong.' } : {}),
    }),
  );
}

function answerCheck(
  reply: FastifyReply,
  check: Exclude<ReturnType<typeof checkAuthorizeRequest>, { kind: 'ok' }>,
): FastifyReply {
  if (check.kind === 'redirect') return redirect(reply, check.location);
  return html(
    reply.status(check.status),
    renderErrorPage({ title: check.title, message: check.message, error: check.error }),
  );
}

function csrfPage(reply: FastifyReply): FastifyReply {
  return html(
    reply.status(403),
    renderErrorPage({
      title: 'Form expired',
      message: 'The form was not sent from this page or has expired. Start the sign-in again.',
      error: 'invalid_request',
    }),
  );
}

/** 303 See Other: after a POST the browser follows with GET. */
function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(location, 303);
}

/** `next` of the sign-in page: an emulator path under /oauth/ only (no open redirect). */
export function safeNext(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/oauth/') || /[\\\s]|\/\//.test(next)) return SIGNED_IN_PATH;
  return next;
}
