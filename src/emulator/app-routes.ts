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
  const { partnerOrganizations, partnerMembers, baseUrl } = context;
  await app.register(partnerRoutes, { context: { partnerOrganizations, partnerMembers, baseUrl } });
  await app.register(openidRoutes, { context: { tokens: context.tokens, baseUrl } });
  await registerPrinterRoutes(app, context);
  const { printers, jobs, files, printing, assignments, logger } = context;
  // The print submission API and storage.
  await app.register(sfapiRoutes, {
    context: { printers, jobs, files, printing, assignments, baseUrl, logger },
  });
  // Pull printing: /TPFM/, held queues, pairing and card claims.
  const { pull, credentials, signIn } = context;
  await app.register(pullPrintingRoutes, {
    context: { pull, printers, credentials, signIn, baseUrl, logger },
  });
  // Webhook endpoints, settings, failed events and retries.
  await app.register(webhookRoutes, { context: { webhooks: context.webhooks, baseUrl } });
}

/** The OAuth authorization server: token, keys, pairing, authorize and revoke. */
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

/**
 * The admin API (printers, capabilities, connectors, drivers, printing groups and assignments),
 * then the connector REST routes and the channel.
 */
async function registerPrinterRoutes(app: FastifyInstance, c: EmulatorContext): Promise<void> {
  const { printers, capabilities, drivers, connectors, assignments, hub, logger, baseUrl } = c;
  await app.register(printerRoutes, {
    context: { printers, capabilities, drivers, connectors, assignments, baseUrl },
  });
  await app.register(printerCapabilityRoutes, { context: { printers, capabilities, connectors } });
  await app.register(connectorAdminRoutes, {
    context: { connectorRecords: c.store.connectors, connectors, hub, logger, baseUrl },
  });
  await app.register(driverRoutes, { context: { drivers, baseUrl } });
  await app.register(printingGroupRoutes, { context: { groups: c.groups, baseUrl } });
  await app.register(assignmentRoutes, { context: { assignments, baseUrl } });
  const jobs = c.jobs;
  const documents = c.documents;
  await app.register(connectorJobRoutes, {
    context: { connectors, jobs, printers, hub, capabilities, documents },
  });
  await app.register(connectorChannelRoutes, {
    context: { hub, connectors, printers, jobs, logger, db: c.store.db },
  });
}
