/**
 * Who is calling an API: what bearer authentication (bearer-auth.ts) resolves a token to,
 * and what services are told about the caller. A plain value; nothing to clean up.
 */
import type { UserRole } from './user-repo.js';

/** Whom a token acts for: a signed-in user, or (client_credentials) the client itself. */
export type CallerKind = 'user' | 'client';

/** Who is calling, set by requireScopes. */
export interface AuthContext {
  /** `user` for the user grants; `client` for client_credentials (no user, no role). */
  kind: CallerKind;
  /**
   * The user the token acts for. A `client` caller has none: reading it throws 403 (see
   * `userRequired`), so use `kind` to branch without reading it.
   */
  userId: string;
  organizationId: string;
  clientId: string;
  scopes: string[];
  /** The user's roles; always `[]` for a `client` caller. */
  roles: UserRole[];
}
