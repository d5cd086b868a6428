/**
 * Who may use the sandbox (console, fault switchboard, test clock), the mail outbox's rule:
 * a loopback client without forwarding headers sees and steers everything; anyone else needs the
 * bearer token (`account` scope) of an organization admin and sees that organization only; no
 * token is 401, an ordinary user's or a client's token 403.
 */
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../lib/errors.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import { isLocalDeveloper } from '../accounts/mail-routes.js';
import { authenticateRequest } from '../accounts/bearer-auth.js';

/** Who is at the sandbox: the local developer (every organization) or one organization's admin. */
export interface SandboxReader {
  /** Undefined for the local developer: every organization. */
  organizationId?: string;
}

/** The reader of `request`; throws 401/403 for anyone but the local developer and admins. */
export async function sandboxReader(request: FastifyRequest): Promise<SandboxReader> {
  if (isLocalDeveloper(request)) return {};
  const auth = await authenticateRequest(request, [REQUIRED_SCOPE.account]);
  if (!auth.roles.includes('admin'))
    throw new ForbiddenError(
      "the emulator's console, faults and clock need the admin role of an organization (or a loopback client)",
    );
  return { organizationId: auth.organizationId };
}
