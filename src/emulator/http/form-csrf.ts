/**
 * A CSRF token for a browser form that needs no sign-in session (the invitation acceptance
 * page): showing the form sets a fresh random token in a signed, HttpOnly, SameSite=Strict
 * cookie scoped to the form's path and writes the same token into a hidden field; the POST is
 * accepted only when the field equals the cookie (constant-time) and the cookie's signature
 * holds. A page of another site can neither read the token nor send the cookie with its POST.
 * Uses the cookie secret registered in app.ts; stateless, nothing to clean up.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Name of the form field carrying the token. */
export const CSRF_FIELD = 'csrf_token';
/** Name of the cookie carrying the token. */
export const FORM_CSRF_COOKIE = 'printrelay_form';
/** How long a shown form can be sent back. */
const FORM_TTL_S = 3600;

/** Issues a token for the form at `path`: sets its cookie on `reply` and returns the field value. */
export function issueFormCsrf(request: FastifyRequest, reply: FastifyReply, path: string): string {
  const token = randomBytes(32).toString('base64url');
  reply.setCookie(FORM_CSRF_COOKIE, token, {
    signed: true,
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    path,
    maxAge: FORM_TTL_S,
  });
  return token;
}

/** Whether the request's `csrf_token` field matches its signed form cookie. */
export function checkFormCsrf(request: FastifyRequest, field: unknown): boolean {
  const raw = request.cookies[FORM_CSRF_COOKIE];
  if (raw === undefined || typeof field !== 'string') return false;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return false;
  const expected = Buffer.from(unsigned.value);
  const actual = Buffer.from(field);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
