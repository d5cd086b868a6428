/**
 * The pairing-code grant's HTTP side (field notes):
 *  - POST /oauth/pair/ (Basic client auth, form mode=device, scope): `{ pairing_code, auth_url,
 *    expires_in, interval }`;
 *  - GET /oauth/authorize/pairing/?pairing_code=: signed out, the sign-in page that binds the
 *    code; signed in, a confirmation (Connect device / Deny);
 *  - POST /oauth/authorize/pairing/: sign-in and/or decision, CSRF-checked; binds the code.
 * Polling is grant_type=pairing_code at the token endpoint (routes/oauth-token.ts).
 */
import type { FastifyReply } from 'fastify';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { UserSignIn } from '../accounts/user-sign-in.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import { OAuthError } from '../http/http-errors.js';
import { requestBaseUrl } from '../http/pagination.js';
import { PAIRING_PAGE_PATH, type PairingService, normalizePairingCode } from './pairing.js';
import type { BrowserSession, SessionService } from './sessions.js';
import type { TokenService } from './token-service.js';
import { renderErrorPage } from '../web/error-page.js';
import {
  renderPairingConfirmPage,
  renderPairingDeniedPage,
  renderPairingDonePage,
  renderPairingPage,
} from '../web/pairing-page.js';
import { type Form, authenticateClient, formFields } from './client-authentication.js';
import { oauthRequests } from './oauth-request-schemas.js';
import { oauthSchemas } from './oauth-schemas.js';
import { operation } from '../http/schemas.js';

/** What /oauth/pair/ and the pairing pages use. */
export interface PairingRouteContext {
  tokens: TokenService;
  pairings: PairingService;
  sessions: SessionService;
  signIn: UserSignIn;
  baseUrl: BaseUrlPolicy;
}

/** Registers /oauth/pair/ and the pairing pages. */
export const oauthPairRoutes: RoutePlugin<PairingRouteContext> = async (app, { context }) => {
  const { sessions } = context;

  app.post(
    '/oauth/pair',
    { schema: operation('RequestPairingCode', oauthSchemas.pair, oauthRequests.pair) },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const form = formFields(request.body);
      const client = await authenticateClient(request, form, context.tokens);
      const mode = form['mode'] ?? 'device';
      if (mode !== 'device') throw new OAuthError(400, 'invalid_request', 'mode: must be device');
      return context.pairings.startPairing(client, form['scope'], requestBaseUrl(request, context.baseUrl));
    },
  );

  app.get<{ Querystring: { pairing_code?: string } }>(
    PAIRING_PAGE_PATH,
    { schema: operation('ShowPairingPage', oauthSchemas.browserPage, oauthRequests.pairingPage) },
    async (request, reply) => {
      const code = pageCode(request.query.pairing_code, reply);
      if (code === undefined) return reply;
      const open = context.pairings.findOpen(code);
      if (!open) return expiredPage(reply);
      const session = sessions.open(request, reply);
      return sendPairingPage(reply, context, session, code, undefined);
    },
  );

  app.post(
    PAIRING_PAGE_PATH,
    { schema: operation('ConfirmPairing', oauthSchemas.browserPage, oauthRequests.pairingDecision) },
    async (request, reply) => {
      const form = formFields(request.body);
      const code = pageCode(form['pairing_code'], reply);
      if (code === undefined) return reply;
      let session = sessions.current(request);
      if (!sessions.checkCsrf(session, form['csrf_token'])) return csrfPage(reply);
      if (!context.pairings.findOpen(code)) return expiredPage(reply);
      if (form['email'] !== undefined || form['password'] !== undefined) {
        const user = await context.signIn.verify(form['email'] ?? '', form['password'] ?? '', request.ip);
        if (!user) {
          reply.status(401);
          return sendPairingPage(reply, context, session!, code, 'The email or password is wrong.', form);
        }
        session = sessions.signIn(request, reply, session, user);
      }
      if (!session?.user) return sendPairingPage(reply, context, session!, code, 'Sign in first.', form);
      return decide(reply, context, session, code, form['decision'] !== 'deny');
    },
  );
};

function decide(
  reply: FastifyReply,
  context: PairingRouteContext,
  session: BrowserSession,
  code: string,
  approve: boolean,
): FastifyReply {
  const open = context.pairings.findOpen(code);
  try {
    context.pairings.decide(code, session.user!, approve);
  } catch (error) {
    if (error instanceof NotFoundError) return expiredPage(reply);
    if (error instanceof ForbiddenError) {
      return html(
        reply.status(403),
        renderErrorPage({ title: 'Access denied', message: error.message, error: error.code }),
      );
    }
    throw error;
  }
  const page = approve
    ? renderPairingDonePage({ pairingCode: code, ...(open ? { client: pageClient(open.client) } : {}) })
    : renderPairingDeniedPage({ pairingCode: code });
  return html(reply, page);
}

function sendPairingPage(
  reply: FastifyReply,
  context: PairingRouteContext,
  session: BrowserSession,
  code: string,
  error: string | undefined,
  form: Form = {},
): FastifyReply {
  const open = context.pairings.findOpen(code);
  const client = open ? pageClient(open.client) : undefined;
  const common = { action: PAIRING_PAGE_PATH, csrfToken: session.record.csrfToken, pairingCode: code };
  if (session.user) {
    const scopes = open?.record.scopes ?? [];
    return html(
      reply,
      renderPairingConfirmPage({
        ...common,
        userEmail: session.user.email,
        scopes,
        ...(client ? { client } : {}),
      }),
    );
  }
  return html(
    reply,
    renderPairingPage({
      ...common,
      ...(client ? { client } : {}),
      ...(error ? { error } : {}),
      ...(form['email'] ? { email: form['email'] } : {}),
    }),
  );
}

/** The pairing code of a page request, or undefined after sending the error page. */
function pageCode(raw: string | undefined, reply: FastifyReply): string | undefined {
  try {
    return normalizePairingCode(raw ?? '');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    html(
      reply.status(400),
      renderErrorPage({ title: 'Invalid pairing code', message: error.message, error: 'invalid_request' }),
    );
    return undefined;
  }
}

function expiredPage(reply: FastifyReply): FastifyReply {
  return html(
    reply.status(404),
    renderErrorPage({
      title: 'Pairing code not found',
      message:
        'This pairing code is unknown, expired or already used. Start the pairing again on the device.',
      error: 'invalid_grant',
    }),
  );
}

function csrfPage(reply: FastifyReply): FastifyReply {
  return html(
    reply.status(403),
    renderErrorPage({
      title: 'Form expired',
      message: 'The form was not sent from this page or has expired. Open the link again.',
      error: 'invalid_request',
    }),
  );
}

/** The client as pages show it. */
export function pageClient(client: { name: string; externalDescription: string }): {
  name: string;
  externalDescription: string;
} {
  return { name: client.name, externalDescription: client.externalDescription };
}

/** Sends an HTML page that must not be cached or framed. */
export function html(reply: FastifyReply, page: string): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    )
    .send(page);
}
