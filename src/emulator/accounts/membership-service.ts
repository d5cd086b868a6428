/**
 * The rules of memberships shared by the account API (/v1/users/) and the partner API: an
 * organization always keeps at least one admin; removing a user's last membership deletes the
 * user; a user whose home organization (the one its tokens are for) is left moves home to its
 * oldest remaining membership. Roles of the home membership are mirrored on the user row,
 * which bearer authentication reads. Stateless over the store; nothing to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { ConflictError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { RefreshTokenRevoker } from '../oauth/oauth-face.js';
import type { Membership } from './membership-repo.js';
import type { UserRole } from './user-repo.js';

/** What removing a membership did to the user. */
export type RemovalOutcome = 'left' | 'deleted';

/** Membership changes of one emulator. */
export class MembershipService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Revokes the refresh tokens of a user leaving an organization. */
    private readonly refreshTokens: RefreshTokenRevoker,
  ) {}

  /** Adds `userId` to an organization (the caller checked both exist and are not linked yet). */
  add(organizationId: string, userId: string, roles: UserRole[]): Membership {
    const membership = this.store.memberships.add(userId, organizationId, roles, this.clock.now());
    this.logger.info({ user: userId, organization: organizationId, roles }, 'membership added');
    return membership;
  }

  /** Changes roles; refuses to take admin from the organization's last admin (409 last_admin). */
  setRoles(membership: Membership, roles: UserRole[]): Membership {
    const { userId, organizationId } = membership;
    if (!roles.includes('admin')) this.assertNotLastAdmin(membership, 'roles');
    this.store.transaction(() => {
      this.store.memberships.setRoles(userId, organizationId, roles);
      const user = this.store.users.findById(userId);
      if (user?.organizationId === organizationId) this.store.users.setHomeRoles(userId, roles);
    });
    return { ...membership, roles };
  }

  /** Removes a membership under the last-admin rule; deletes the user when it was its last one. */
  remove(membership: Membership): RemovalOutcome {
    this.assertNotLastAdmin(membership, 'user');
    return this.store.transaction(() => this.detach(membership));
  }

  /**
   * Removes a membership without the last-admin rule (the organization itself goes): the user is
   * deleted when it has no other membership, else moves home when this was its home.
   */
  detach(membership: Membership): RemovalOutcome {
    const { userId, organizationId } = membership;
    const now = this.clock.now();
    this.store.memberships.remove(userId, organizationId);
    this.refreshTokens.revokeUserInOrganization(userId, organizationId, now);
    const remaining = this.store.memberships.listByUser(userId);
    const next = remaining[0];
    if (next === undefined) {
      this.store.users.delete(userId);
      this.logger.info(
        { user: userId, organization: organizationId },
        'user deleted with its last membership',
      );
      return 'deleted';
    }
    const user = this.store.users.findById(userId);
    if (user?.organizationId === organizationId)
      this.store.users.setHome(userId, next.organizationId, next.roles);
    this.logger.info({ user: userId, organization: organizationId }, 'membership removed');
    return 'left';
  }

  private assertNotLastAdmin(membership: Membership, field: string): void {
    if (!membership.roles.includes('admin')) return;
    if (this.store.memberships.countAdmins(membership.organizationId) > 1) return;
    throw new ConflictError(
      'an organization must keep at least one admin: make another member admin first',
      field,
      'last_admin',
    );
  }
}
