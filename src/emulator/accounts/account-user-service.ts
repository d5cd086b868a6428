/**
 * Account users of an organization (/v1/users/): an admin lists, reads, changes and removes the
 * organization's members; an ordinary user sees and edits only their own record (never roles).
 * Users of another organization do not exist for the caller (NotFoundError, never forbidden).
 * Removing uses MembershipService: the last admin stays, a user without memberships is deleted.
 * Stateless over the store; nothing to clean up.
 */
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { EmulatorStore } from '../emulator-store.js';
import { emailField, objectBody, onlyFields, rolesField, textField } from './account-rules.js';
import type { Membership } from './membership-repo.js';
import type { MembershipService } from './membership-service.js';
import type { User, UserChanges } from './user-repo.js';

/** Who calls the account API: the organization, the user, and whether they are its admin. */
export interface AccountCaller {
  organizationId: string;
  /** Read only for ordinary users (an admin's list does not need it). */
  userId: () => string;
  isAdmin: boolean;
}

/** The account-user resource of the spec (roles of the organization asked about). */
export function accountUserResource(user: User, roles = user.roles): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    display_name: `${user.firstName} ${user.lastName}`.trim(),
    date_joined: new Date(user.createdAt).toISOString(),
    cloud_profile: null,
    id_profile: null,
    user_invitations: null,
    roles,
    is_verified: true,
  };
}

const PATCHABLE = ['first_name', 'last_name', 'email', 'roles'] as const;

/** The account-user operations of one emulator. */
export class AccountUserService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly memberships: MembershipService,
    private readonly logger: Logger,
  ) {}

  /** One page of the users the caller may see, and their count. */
  list(caller: AccountCaller, limit: number, offset: number): { count: number; results: unknown[] } {
    if (!caller.isAdmin) {
      const self = this.visible(caller, caller.userId());
      return { count: 1, results: offset === 0 ? [self] : [] };
    }
    const org = caller.organizationId;
    const page = this.store.memberships.listByOrganization(org, limit, offset);
    return {
      count: this.store.memberships.countByOrganization(org),
      results: page.map((m) => this.resource(m)),
    };
  }

  /** One user the caller may see. */
  get(caller: AccountCaller, userId: string): Record<string, unknown> {
    return this.visible(caller, userId);
  }

  /** Changes first_name, last_name, email and (admins only) roles; any other field is refused. */
  patch(caller: AccountCaller, userId: string, body: unknown): Record<string, unknown> {
    const membership = this.membershipFor(caller, userId);
    const fields = objectBody(body);
    onlyFields(fields, PATCHABLE);
    const changes = userChanges(fields);
    const roles = fields['roles'] === undefined ? undefined : rolesField(fields['roles']);
    if (roles !== undefined && !caller.isAdmin)
      throw new ForbiddenError('roles: only an admin of the organization may change roles');
    if (changes.email !== undefined) this.assertEmailFree(changes.email, userId);
    this.store.transaction(() => {
      this.store.users.update(userId, changes);
      if (roles !== undefined) this.memberships.setRoles(membership, roles);
    });
    this.logger.info({ user: userId, fields: Object.keys(fields) }, 'account user changed');
    return this.resource(this.store.memberships.find(userId, caller.organizationId)!);
  }

  /** Removes the user from the caller's organization (admin only; the last admin stays). */
  remove(caller: AccountCaller, userId: string): void {
    if (!caller.isAdmin) throw new ForbiddenError('deleting a user needs the admin role');
    this.memberships.remove(this.membershipFor(caller, userId));
  }

  private visible(caller: AccountCaller, userId: string): Record<string, unknown> {
    return this.resource(this.membershipFor(caller, userId));
  }

  /** The target's membership in the caller's organization; other users are not found. */
  private membershipFor(caller: AccountCaller, userId: string): Membership {
    const membership = this.store.memberships.find(userId, caller.organizationId);
    const seen = membership !== undefined && (caller.isAdmin || caller.userId() === userId);
    if (!seen) throw new NotFoundError(`user ${userId}`);
    return membership;
  }

  private resource(membership: Membership): Record<string, unknown> {
    const user = this.store.users.findById(membership.userId)!;
    return accountUserResource(user, membership.roles);
  }

  private assertEmailFree(email: string, userId: string): void {
    const other = this.store.users.findByEmail(email);
    if (other && other.id !== userId)
      throw new ConflictError('email: another account uses this address', 'email', 'email_taken');
  }
}

function userChanges(fields: Record<string, unknown>): UserChanges {
  const changes: UserChanges = {};
  if (fields['email'] !== undefined) changes.email = emailField(fields['email']);
  if (fields['first_name'] !== undefined)
    changes.firstName = textField(fields['first_name'], 'first_name', 150, true);
  if (fields['last_name'] !== undefined)
    changes.lastName = textField(fields['last_name'], 'last_name', 150, true);
  return changes;
}
