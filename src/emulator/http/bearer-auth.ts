/**
 * Bearer authentication for route handlers: `requireScopes(...scopes)` is a Fastify preHandler
 * that verifies `Authorization: Bearer <jwt>` with the emulator's TokenService, loads the user
 * and sets `request.auth`. Missing or bad token: 401 with `WWW-Authenticate: Bearer
 * error="invalid_token"`; a token without every listed scope: 403 insufficient_scope.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { UserRole } from '../store/user-repo.js';
import { insufficientScope, invalidToken } from './http-errors.js';

/** Who is calling, set by requireScopes. */
export interface AuthContext {
  userId: string;
  organizationId: string;
  clientId: string;
  scopes: string[];
  roles: UserRole[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by requireScopes; null on routes without bearer auth. */
    auth: AuthContext;
  }
}

/** The bearer token of a request, or undefined (scheme compared case-insensitively). */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Verifies the bearer token of `request` and returns the caller. Used by requireScopes and by
 * the WebSocket channel (which closes instead of answering 401).
 */
export async function authenticateRequest(
  request: FastifyRequest,
  scopes: readonly string[],
): Promise<AuthContext> {
  const token = bearerToken(request);
  if (token === undefined) throw invalidToken('an Authorization: Bearer token is required');
  const { store, tokens } = request.server.emulator;
  const claims = await tokens.verifyAccessToken(token);
  const user = store.users.findById(claims.sub);
  if (!user || user.organizationId !== claims.org)
    throw invalidToken('the user of the token no longer exists');
  const granted = claims.scopes.split(' ').filter((s) => s !== '');
  const missing = scopes.filter((s) => !granted.includes(s));
  if (missing.length > 0) throw insufficientScope([...scopes]);
  return {
    userId: user.id,
    organizationId: user.organizationId,
    clientId: claims.client_id,
    scopes: granted,
    roles: user.roles,
  };
}

/** A preHandler that requires a valid bearer token carrying every one of `scopes`. */
export function requireScopes(...scopes: string[]): preHandlerAsyncHookHandler {
  return async (request) => {
    request.auth = await authenticateRequest(request, scopes);
  };
}

/** A preHandler that requires a valid bearer token carrying at least one of `scopes`. */
export function requireAnyScope(...scopes: string[]): preHandlerAsyncHookHandler {
  return async (request) => {
    const auth = await authenticateRequest(request, []);
    if (!scopes.some((s) => auth.scopes.includes(s))) throw insufficientScope(scopes, 'one of');
    request.auth = auth;
  };
}
