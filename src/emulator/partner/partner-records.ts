/**
 * The records partner/ works on, each through the face of the domain that owns it: partner/ has
 * no table of its own. The composition (app.ts) lends the owners' repositories under these types;
 * a delete runs them in one transaction.
 */
import type { ManagedOrganizationRecords, MembershipReader, UserReader } from '../accounts/accounts-face.js';
import type { OrganizationConnectorLister } from '../connectors/connectors-face.js';
import type { OrganizationFileRecords } from '../files/files-face.js';
import type { OrganizationJobRecords } from '../jobs/jobs-face.js';
import type { OrganizationRefreshTokenDeleter } from '../oauth/oauth-face.js';

/** What the partner services read and write, and the transaction they do it in. */
export interface PartnerRecords {
  /** Runs `fn` in one transaction of the emulator's database. */
  transaction<T>(fn: () => T): T;
  organizations: ManagedOrganizationRecords;
  memberships: MembershipReader;
  users: UserReader;
  connectors: OrganizationConnectorLister;
  storedFiles: OrganizationFileRecords;
  jobs: OrganizationJobRecords;
  refreshTokens: OrganizationRefreshTokenDeleter;
}
