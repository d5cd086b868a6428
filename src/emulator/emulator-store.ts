/**
 * The emulator's store: the database handle (store/database.ts) and the repositories of every
 * domain over it, built together; composed here, beside app.ts, as store/ holds infrastructure
 * only. `close()` closes the database; whoever called `openEmulatorStore` calls it.
 */
import { AssignmentRepo } from './groups/assignment-repo.js';
import { ConnectorRepo } from './connectors/connector-repo.js';
import { type EmulatorDatabase, openEmulatorDatabase } from './store/database.js';
import { GroupRepo } from './groups/group-repo.js';
import { JobRepo } from './jobs/job-repo.js';
import { InvitationRepo } from './accounts/invitation-repo.js';
import { MembershipRepo } from './accounts/membership-repo.js';
import { OAuthClientRepo } from './clients/oauth-client-repo.js';
import { OrganizationRepo } from './accounts/organization-repo.js';
import { PrinterAccessRepo } from './printers/printer-access-repo.js';
import { PrinterRepo } from './printers/printer-repo.js';
import { PrinterSettingsRepo } from './printers/printer-settings-repo.js';
import { PrintingUserRepo } from './accounts/printing-settings-repo.js';
import { RefreshTokenRepo } from './oauth/refresh-token-repo.js';
import { SigningKeyRepo } from './oauth/signing-key-repo.js';
import { StoredFileRepo } from './files/stored-file-repo.js';
import { UserRepo } from './accounts/user-repo.js';
import { WebhookDeliveryRepo } from './webhooks/webhook-delivery-repo.js';
import { WebhookEndpointRepo } from './webhooks/webhook-endpoint-repo.js';

/** Every repository over one database. */
export class EmulatorStore {
  readonly organizations: OrganizationRepo;
  readonly users: UserRepo;
  readonly clients: OAuthClientRepo;
  readonly refreshTokens: RefreshTokenRepo;
  readonly signingKeys: SigningKeyRepo;
  readonly printerSettings: PrinterSettingsRepo;
  readonly connectors: ConnectorRepo;
  readonly printers: PrinterRepo;
  /** Printers read by group assignment and by the access rule. */
  readonly printerAccess: PrinterAccessRepo;
  readonly jobs: JobRepo;
  readonly storedFiles: StoredFileRepo;
  /** Printing groups and their members. */
  readonly groups: GroupRepo;
  /** Printer-group assignments. */
  readonly assignments: AssignmentRepo;
  /** Users' printing settings. */
  readonly printingUsers: PrintingUserRepo;
  /** Webhook endpoints and data protection settings. */
  readonly webhookEndpoints: WebhookEndpointRepo;
  /** The webhook delivery queue (each delivery with its event) and retry-all runs. */
  readonly webhookDeliveries: WebhookDeliveryRepo;
  /** Users' memberships of organizations. */
  readonly memberships: MembershipRepo;
  /** Invitations to organizations. */
  readonly invitations: InvitationRepo;

  constructor(readonly db: EmulatorDatabase) {
    this.organizations = new OrganizationRepo(db);
    this.users = new UserRepo(db);
    this.clients = new OAuthClientRepo(db);
    this.refreshTokens = new RefreshTokenRepo(db);
    this.signingKeys = new SigningKeyRepo(db);
    this.printerSettings = new PrinterSettingsRepo(db);
    this.connectors = new ConnectorRepo(db);
    this.printers = new PrinterRepo(db);
    this.printerAccess = new PrinterAccessRepo(db);
    this.jobs = new JobRepo(db);
    this.storedFiles = new StoredFileRepo(db);
    this.groups = new GroupRepo(db);
    this.assignments = new AssignmentRepo(db);
    this.printingUsers = new PrintingUserRepo(db);
    this.webhookEndpoints = new WebhookEndpointRepo(db);
    this.webhookDeliveries = new WebhookDeliveryRepo(db);
    this.memberships = new MembershipRepo(db);
    this.invitations = new InvitationRepo(db);
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Opens (and migrates) the database at `path` (a file or ':memory:'); the caller closes the store. */
export function openEmulatorStore(path: string): EmulatorStore {
  return new EmulatorStore(openEmulatorDatabase(path));
}
