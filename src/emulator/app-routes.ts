/**
 * The second half of the emulator's composition root (app.ts builds the services): registers
 * every route module with exactly the members it declares in its own `...RouteContext`, taken
 * from the one EmulatorContext app.ts built. No other module holds the whole context.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from './context.js';
import { assignmentRoutes } from './groups/assignment-routes.js';
import { connectorChannelRoutes } from './connectors/connector-channel-routes.js';
import { connectorJobRoutes } from './connectors/connector-job-routes.js';
import { connectorAdminRoutes } from './connectors/connector-routes.js';
import { driverRoutes } from './drivers/driver-routes.js';
import { jwksRoutes } from './oauth/jwks-routes.js';
import { oauthAuthorizeRoutes } from './oauth/authorize-routes.js';
import { oauthClientRoutes } from './clients/client-routes.js';
import { oauthPairRoutes } from './oauth/pairing-routes.js';
import { oauthRevokeRoutes } from './oauth/revoke-routes.js';
import { oauthTokenRoutes } from './oauth/token-routes.js';
import { openidRoutes } from './oauth/openid-routes.js';
import { printerCapabilityRoutes } from './printers/capability-routes.js';
import { printerRoutes } from './printers/printer-routes.js';
import { printingGroupRoutes } from './groups/group-routes.js';
import { pullPrintingRoutes } from './pull/pull-printing-routes.js';
import { sfapiRoutes } from './sfapi/sfapi-routes.js';
import { usersMeRoutes } from './accounts/users-me-routes.js';
import { accountUserRoutes } from './accounts/account-user-routes.js';
import { invitationRoutes } from './accounts/invitation-routes.js';
import { mailRoutes } from './accounts/mail-routes.js';
import { partnerRoutes } from './partner/partner-routes.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

/** Registers every route module of the emulated service, each with its own narrow context. */
export async function registerRoutes(app: FastifyInstance, context: EmulatorContext): Promise<void> {
  await registerOAuthRoutes(app, context);
  await registerAccountRoutes(app, context);
  await app.register(partnerRoutes, { context });
  await app.register(printerRoutes, { context });
  // Capabilities, connectors and drivers of the admin API.
  await app.register(printerCapabilityRoutes, { context });
  await app.register(connectorAdminRoutes, { context });
  await app.register(driverRoutes, { context });
  // Printing groups, printing users and printer-group assignments.
  await app.register(printingGroupRoutes, { context });
  await app.register(assignmentRoutes, { context });
  await app.register(connectorJobRoutes, { context });
  await app.register(connectorChannelRoutes, { context });
  // The print submission API and storage.
  await app.register(sfapiRoutes, { context });
  // Pull printing: /TPFM/, held queues, pairing and card claims.
  await app.register(pullPrintingRoutes, { context });
  // Webhook endpoints, settings, failed events and retries.
  await app.register(webhookRoutes, { context });
}

/** The OAuth authorization server: token, pairing, authorize, revoke, keys and discovery. */
async function registerOAuthRoutes(app: FastifyInstance, c: EmulatorContext): Promise<void> {
  const { tokens, pairings, authorizationCodes, sessions, signIn, baseUrl, logger } = c;
  await app.register(oauthTokenRoutes, { context: { tokens, pairings, authorizationCodes } });
  await app.register(jwksRoutes, { context: { tokens } });
  await app.register(oauthPairRoutes, { context: { tokens, pairings, sessions, signIn, baseUrl } });
  await app.register(oauthAuthorizeRoutes, {
    context: { records: { clients: c.store.clients }, signIn, sessions, authorizationCodes, logger },
  });
  const refreshTokens = c.store.refreshTokens;
  await app.register(oauthRevokeRoutes, { context: { tokens, refreshTokens, clock: c.clock, logger } });
  await app.register(openidRoutes, { context: { tokens, baseUrl } });
}

/** Accounts (users, invitations, the mail outbox) and client management. */
async function registerAccountRoutes(app: FastifyInstance, c: EmulatorContext): Promise<void> {
  const { baseUrl } = c;
  await app.register(oauthClientRoutes, { context: { oauthClients: c.oauthClients, baseUrl } });
  await app.register(usersMeRoutes, { context: { users: c.store.users } });
  await app.register(accountUserRoutes, { context: { accountUsers: c.accountUsers, baseUrl } });
  await app.register(invitationRoutes, { context: { invitations: c.invitations, baseUrl } });
  await app.register(mailRoutes, { context: { mail: c.mail, baseUrl } });
}
