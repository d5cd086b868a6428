/**
 * Every service of one emulator, built once by the composition root (app.ts), which hands each
 * route module, the sandbox and bearer authentication only the members they declare
 * (app-routes.ts). No other module imports this type (test/unit/architecture.test.ts). app.ts
 * also decorates the Fastify instance with it (`app.emulator`), for tests to look inside.
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../log/logger.js';
import type { AccountUserService } from './accounts/account-user-service.js';
import type { CallerRecords } from './accounts/bearer-auth.js';
import type { InvitationService } from './accounts/invitation-service.js';
import type { MailOutbox } from './accounts/mail-outbox.js';
import type { MembershipService } from './accounts/membership-service.js';
import type { PartnerMemberService } from './partner/partner-member-service.js';
import type { PartnerOrganizationService } from './partner/partner-organization-service.js';
import type { AssignmentService } from './groups/assignment-service.js';
import type { AuthorizationCodeService } from './oauth/authorization-codes.js';
import type { CapabilityService } from './printers/capability-service.js';
import type { ConnectorHub } from './connectors/connector-hub.js';
import type { ConnectorService } from './connectors/connector-service.js';
import type { DriverAssignmentService } from './drivers/driver-assignment-service.js';
import type { GroupService } from './groups/group-service.js';
import type { JobService } from './jobs/job-service.js';
import type { OAuthClientService } from './clients/oauth-client-service.js';
import type { PairingService } from './oauth/pairing.js';
import type { PrinterService } from './printers/printer-service.js';
import type { TokenService } from './oauth/token-service.js';
import type { EmulatorStore } from './emulator-store.js';
import type { FileStore } from './files/file-store.js';
import type { UrlFetcher } from './files/url-fetcher.js';
import type { SessionService } from './oauth/sessions.js';
import type { TpfmServices } from './pull/pull-services.js';
import type { PrintService } from './sfapi/print-service.js';
import type { WebhookService } from './webhooks/webhook-service.js';
import type { BaseUrlPolicy } from './http/base-url.js';
import type { FileSender } from './http/file-sender.js';
import type { CredentialGuard } from './store/credential-guard.js';
import type { UserSignIn } from './accounts/user-sign-in.js';

/** Shared state of one emulator instance. Owned and closed by createEmulator's close(). */
export interface EmulatorContext {
  store: EmulatorStore;
  /** The users and clients bearer tokens name (accounts/bearer-auth.ts). */
  callers: CallerRecords;
  logger: Logger;
  clock: Clock;
  /** Uploaded files and other data live under this directory. */
  dataDir: string;
  /** Base URL of absolute links (sasUri, pagination, auth URLs) per request. */
  baseUrl: BaseUrlPolicy;
  /** Every check of a presented secret: throttles and the scrypt hasher (off the event loop). */
  credentials: CredentialGuard;
  /** E-mail and password checks of users (sign-in pages, claim page, password grant). */
  signIn: UserSignIn;
  tokens: TokenService;
  printers: PrinterService;
  jobs: JobService;
  connectors: ConnectorService;
  hub: ConnectorHub;
  /** Blob and simplified capabilities of printers, and the merged printer properties. */
  capabilities: CapabilityService;
  /** The driver catalog and automatic driver assignment. */
  drivers: DriverAssignmentService;
  /** Pairing-code grant; `pairings.approvePairing(code, email)` approves in-process (the demo). */
  pairings: PairingService;
  /** Authorization codes of the authorization code grant. */
  authorizationCodes: AuthorizationCodeService;
  /** OAuth client management (/v1/oauth-clients/). */
  oauthClients: OAuthClientService;
  /** Printing groups and users' printing settings (/printing/v1/groups/, /printing/v1/users/). */
  groups: GroupService;
  /** Printer-group assignments and the rule of which printers a user may use. */
  assignments: AssignmentService;
  /** Uploaded and fetched documents: one store for /sfapi/, the storage endpoint and /TPFM/. */
  files: FileStore;
  /** Writes job documents to connectors from a pool of reused buffers. */
  documents: FileSender;
  /** Runs fileurl fetches into stored files; app.ts stops it when the server closes. */
  fetcher: UrlFetcher;
  /** The Print request: validation, the document's readiness, the job. */
  printing: PrintService;
  /** Pull printing: queue, device auth, local jobs, registration codes, running releases. */
  pull: TpfmServices;
  /** Browser sessions of the sign-in, consent and pairing pages. */
  sessions: SessionService;
  /** Webhook endpoints, settings, failed events and retries (/webhooks/). */
  webhooks: WebhookService;
  /** Memberships of users in organizations and their rules (last admin, last membership). */
  memberships: MembershipService;
  /** Account users of an organization (/v1/users/). */
  accountUsers: AccountUserService;
  /** Invitations and their acceptance page. */
  invitations: InvitationService;
  /** The mail outbox (GET /_emulator/mail); nothing is sent. */
  mail: MailOutbox;
  /** The partner API's organizations. */
  partnerOrganizations: PartnerOrganizationService;
  /** The partner API's members and memberships. */
  partnerMembers: PartnerMemberService;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The emulator context (set by createEmulator). */
    emulator: EmulatorContext;
  }
}
