/**
 * The face of accounts/: what other domains may use of its repositories (the records of users,
 * memberships, organizations and users' printing settings). Other domains import accounts/
 * repositories' types only from here (test/unit/architecture.test.ts). Types only.
 */
export type { CurrencyCode, Organization } from './organization-repo.js';
export type { Membership } from './membership-repo.js';
export type { PrintingSettings } from './printing-settings-repo.js';
export type { User, UserRole } from './user-repo.js';
