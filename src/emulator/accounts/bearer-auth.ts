/**
 * Bearer authentication for route handlers: `requireScopes(...scopes)` is a Fastify preHandler
 * that verifies `Authorization: Bearer <jwt>` with the emulator's TokenService, resolves the
 * caller and sets `request.auth`. Missing or bad token: 401 with `WWW-Authenticate: Bearer
 * error="invalid_token"`; a token without every listed scope: 403 insufficient_scope.
 *
 * Two kinds of caller (AuthContext.kind):
 * - `user`: a token of the password, authorization_code, pairing_code or refresh_token grant
 *   (claim `tk` user or device). Its `sub` must still be a user of the token's organization,
 *   else 401 "the user of the token no longer exists".
 * - `client`: a client_credentials token (claim `tk` client, `sub` the client id). It stands
 *   for the client alone, in the client's organization: no user and no role. Scopes are checked
 *   as for user tokens. Reading `userId` of such a caller throws 403 naming the rule, so a
 *   route that acts for a user (Print, PrepareUpload, /v1/users/me/, ...) refuses it instead of
 *   running without a user or recording the client as one; admin-only calls see no `admin`
 *   role and answer 403. Deleting the client does not end its tokens: like every access token
 *   of a deleted client they live until they expire (spec C rule 6; no new token is issued).
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { ClientCredentialReader } from '../clients/clients-face.js';
import type { AccessTokenClaims } from '../oauth/token-types.js';
import type { AuthContext } from './auth-context.js';
import type { UserRepo, UserRole } from './user-repo.js';
import { type HttpError, forbidden, insufficientScope, invalidToken } from '../http/http-errors.js';

export type { AuthContext, CallerKind } from './auth-context.js';

/**
 * What the callers of tokens are resolved against: the users of accounts/ and the clients of
 * clients/ (through its face), lent by app.ts as the context's `callers`.
 */
export interface CallerRecords {
  users: Pick<UserRepo, 'findById'>;
  clients: Pick<ClientCredentialReader, 'findById'>;
}

/**
 * What bearer authentication uses: the token check of oauth/ and the callers. app.ts decorates
 * the Fastify instance with it (`app.bearer`), so route modules need not pass it along.
 */
export interface BearerVerifier {
  tokens: { verifyAccessToken(token: string): Promise<AccessTokenClaims> };
  callers: CallerRecords;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Bearer authentication's token check and callers (set by createEmulator). */
    bearer: BearerVerifier;
  }
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
  const claims = await request.server.bearer.tokens.verifyAccessToken(token);
  const granted = claims.scopes.split(' ').filter((s) => s !== '');
  const auth =
    claims.tk === 'client' ? clientCaller(request, claims, granted) : userCaller(request, claims, granted);
  const missing = scopes.filter((s) => !granted.includes(s));
  if (missing.length > 0) throw insufficientScope([...scopes]);
  return auth;
}

/** A user token's caller: its user must still exist in the token's organization. */
function userCaller(request: FastifyRequest, claims: AccessTokenClaims, granted: string[]): AuthContext {
  const user = request.server.bearer.callers.users.findById(claims.sub);
  if (!user || user.organizationId !== claims.org)
    throw invalidToken('the user of the token no longer exists');
  return {
    kind: 'user',
    userId: user.id,
    organizationId: user.organizationId,
    clientId: claims.client_id,
    scopes: granted,
    roles: user.roles,
  };
}

/**
 * A client_credentials token's caller: the client of `sub` in its organization. The client's
 * record outlives a delete (deleted_at), so its tokens keep working until they expire, as user
 * tokens of a deleted client do; a token naming no client of that organization is refused.
 */
function clientCaller(request: FastifyRequest, claims: AccessTokenClaims, granted: string[]): AuthContext {
  const client = request.server.bearer.callers.clients.findById(claims.sub);
  if (!client || client.clientId !== claims.client_id || client.organizationId !== claims.org)
    throw invalidToken('the client of the token no longer exists');
  const action = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
  return new ClientCaller(client.clientId, client.organizationId, granted, action);
}

/** The caller of a client_credentials token: no user (reading userId throws 403), no role. */
class ClientCaller implements AuthContext {
  readonly kind = 'client' as const;
  readonly roles: UserRole[] = [];

  constructor(
    readonly clientId: string,
    readonly organizationId: string,
    readonly scopes: string[],
    /** Method and route of the request, for the refusal's message. */
    private readonly action: string,
  ) {}

  get userId(): string {
    throw userRequired(this.action);
  }
}

/**
 * 403 for a client_credentials token on a call that acts for a user: `action` names the call
 * (for example "POST /sfapi/Print/" or "client management").
 */
export function userRequired(action: string): HttpError {
  return forbidden(
    `${action} acts for a signed-in user, and a client_credentials token stands for its client alone ` +
      '(no user): use a token of the authorization_code, pairing_code or password grant',
  );
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
