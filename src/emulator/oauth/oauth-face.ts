/**
 * The face of oauth/: what other domains may use of it, the revocation of refresh tokens when a
 * member leaves an organization (accounts/) or a client is deleted (clients/), and their deletion
 * when an organization is deleted (partner/), and the live sign-ins the console lists
 * (sandbox/). The composition
 * (app.ts) lends the refresh-token repository, the one writer of that table, under this type.
 * Types only.
 */
import type { RefreshTokenRepo } from './refresh-token-repo.js';

export type { LiveSignIn } from './refresh-token-repo.js';

/** Revokes refresh tokens: of one user in one organization, or of one client. */
export type RefreshTokenRevoker = Pick<RefreshTokenRepo, 'revokeUserInOrganization' | 'revokeClient'>;

/** Deletes the refresh tokens of an organization being deleted (partner/). */
export type OrganizationRefreshTokenDeleter = Pick<RefreshTokenRepo, 'deleteOfOrganization'>;

/** Lists live sign-ins (refresh token families), one page at a time (sandbox/: the console). */
export type LiveSignInLister = Pick<RefreshTokenRepo, 'liveSignIns'>;
