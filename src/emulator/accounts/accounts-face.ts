/**
 * The face of accounts/: what other domains may use of its repositories (the records of users,
 * memberships, organizations and users' printing settings) and the parts of them the composition
 * (app.ts) lends to partner/, webhooks/, groups/, oauth/, pull/, jobs/ and sandbox/. Other domains import accounts/ repositories' types only from here
 * (test/unit/architecture.test.ts). Types only.
 */
import type { MembershipRepo } from './membership-repo.js';
import type { OrganizationRepo } from './organization-repo.js';
import type { PrintingUserRepo } from './printing-settings-repo.js';
import type { UserRepo } from './user-repo.js';

export type { CurrencyCode, Organization } from './organization-repo.js';
export type { Membership } from './membership-repo.js';
export type { PrintingSettings } from './printing-settings-repo.js';
export type { User, UserRole } from './user-repo.js';

/** The organizations a partner manages: read, list, create, rename and delete (partner/). */
export type ManagedOrganizationRecords = Pick<
  OrganizationRepo,
  'findById' | 'findByName' | 'listManaged' | 'countManaged' | 'create' | 'rename' | 'delete'
>;

/** Reads memberships: of an organization, and of a user in a partner's organizations (partner/). */
export type MembershipReader = Pick<
  MembershipRepo,
  'find' | 'listByOrganization' | 'countByOrganization' | 'listByUserManaged' | 'countByUserManaged'
>;

/** Reads a user by id (partner/: a member expanded; webhooks/: the user an event names). */
export type UserReader = Pick<UserRepo, 'findById'>;

/** Reads a user by id and an organization's users (groups/: a printing user and its page). */
export type OrganizationUserReader = Pick<UserRepo, 'findById' | 'listByOrganization'>;

/** Reads and changes users' printing settings (groups/: the printing user resource). */
export type PrintingSettingsRecords = Pick<PrintingUserRepo, 'settings' | 'update'>;

/** Reads a user by id or by email (oauth/: sign-in, tokens, pairing and sessions). */
export type UserSignInRecords = Pick<UserRepo, 'findById' | 'findByEmail'>;

/** A user by id or by card, and the card a registration adds (pull/: card sign-in and registration). */
export type CardHolderRecords = Pick<UserRepo, 'findById' | 'findByCard' | 'addCard'>;

/** Lists every organization (pull/: each one's queue printer at start). */
export type OrganizationLister = Pick<OrganizationRepo, 'list'>;

/** Lists organizations' ids and names, one or every one, by name (sandbox/: the console). */
export type OrganizationNameLister = Pick<OrganizationRepo, 'listNames'>;
