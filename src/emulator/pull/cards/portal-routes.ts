/**
 * The portal page where a user claims a printed registration code: GET shows a form (email,
 * password, code), POST signs the user in with those credentials and links the code's card to
 * them. The form carries the password itself, so a forged cross-site post gains nothing. HTML
 * through the shared page layout; nothing to clean up.
 */
import type { FastifyInstance } from 'fastify';
import { ConflictError, errorMessage, NotFoundError } from '../../../lib/errors.js';
import { CLAIM_PAGE_PATH, type RegistrationCodeService } from './registration-codes.js';
import type { UserSignIn } from '../../accounts/user-sign-in.js';
import { html } from '../../web/html.js';
import { errorNotice, renderPage } from '../../web/page-layout.js';
import { pullRequests, pullSchemas } from '../pull-schemas.js';
import { operation } from '../../http/schemas.js';

/** Renders the claim form, with an error and the e-mail to prefill after a failed post. */
export function renderClaimPage(data: { error?: string; email?: string; code?: string }): string {
  const body = html`<p>Enter the code printed at the printer to link your card to your account.</p>
${errorNotice(data.error)}
<form method="post" action="${CLAIM_PAGE_PATH}">
<label for="email">Email<input id="email" name="email" type="email" autocomplete="username" required value="${data.email ?? ''}"></label>
<label for="password">Password<input id="password" name="password" type="password" autocomplete="current-password" required></label>
<label for="code">Registration code<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required value="${data.code ?? ''}"></label>
<div class="actions"><button type="submit">Link my card</button></div>
</form>`;
  return renderPage({ title: 'Register your card', body });
}

/** Renders the confirmation after a successful claim. */
export function renderClaimDonePage(): string {
  return renderPage({
    title: 'Card linked',
    body: html`<p>Your card is now linked to your account. Swipe it at a pull printer to release your jobs.</p>`,
  });
}

/** Registers GET and POST of the claim page. */
export async function claimPageRoutes(
  app: FastifyInstance,
  options: { signIn: UserSignIn; registration: RegistrationCodeService },
): Promise<void> {
  app.get(
    CLAIM_PAGE_PATH,
    { schema: operation('ShowCardClaimPage', pullSchemas.claimPage) },
    async (_request, reply) => reply.type('text/html; charset=utf-8').send(renderClaimPage({})),
  );

  app.post(
    CLAIM_PAGE_PATH,
    { schema: operation('ClaimCardInPortal', pullSchemas.claimPage, pullRequests.claimForm) },
    async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      const email = typeof form['email'] === 'string' ? form['email'].trim() : '';
      const password = typeof form['password'] === 'string' ? form['password'] : '';
      const code = typeof form['code'] === 'string' ? form['code'].trim() : '';
      const page = (status: 400 | 401 | 404 | 409, error: string) =>
        reply.code(status).type('text/html; charset=utf-8').send(renderClaimPage({ error, email, code }));
      if (!email || !password || !code) return page(400, 'Email, password and code are all required.');
      const user = await options.signIn.verify(email, password, request.ip);
      if (!user) return page(401, 'The email or password is not correct.');
      try {
        options.registration.claim(user, code);
      } catch (error) {
        if (error instanceof NotFoundError) return page(404, 'This code is unknown or has expired.');
        if (error instanceof ConflictError) return page(409, errorMessage(error));
        throw error;
      }
      return reply.type('text/html; charset=utf-8').send(renderClaimDonePage());
    },
  );
}
