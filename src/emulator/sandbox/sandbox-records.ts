/**
 * The records the sandbox reads, each through the face of the domain that owns it: the sandbox
 * has no table of its own and writes none. The composition (app.ts) lends the store under this
 * type when it registers the sandbox.
 */
import type { OrganizationNameLister, UserReader } from '../accounts/accounts-face.js';
import type { LiveClientLister } from '../clients/clients-face.js';
import type { ConnectorLister } from '../connectors/connectors-face.js';
import type { JobReader } from '../jobs/jobs-face.js';
import type { LiveSignInLister } from '../oauth/oauth-face.js';
import type { PrinterSummaryLister } from '../printers/printers-face.js';
import type { RecentDeliveryLister, WebhookEndpointReader } from '../webhooks/webhooks-face.js';

/** What the fault rules and the console read of other domains. */
export interface SandboxRecords {
  /** The organizations the console lists. */
  organizations: OrganizationNameLister;
  /** The printers the console lists. */
  printers: PrinterSummaryLister;
  /** The connectors the console lists. */
  connectors: ConnectorLister;
  /** A job a rule ends or whose document the console serves; the latest jobs. */
  jobs: JobReader;
  /** The user a rule's caller is, and the users the console's jobs and sign-ins name (their e-mail). */
  users: UserReader;
  /** The endpoint a webhook rule or a console retry names; the endpoints the console lists. */
  webhookEndpoints: WebhookEndpointReader;
  /** The deliveries the console lists under their endpoints. */
  webhookDeliveries: RecentDeliveryLister;
  /** The OAuth clients the console lists. */
  clients: LiveClientLister;
  /** The sign-ins the console lists. */
  refreshTokens: LiveSignInLister;
}
