/**
 * The partner API's members of an organization and memberships of a user:
 *   members: list (expand=user), add an existing user of a managed organization, read, change
 *   roles, remove (the last admin stays; a user losing its last membership is deleted);
 *   memberships: a user's memberships in the partner's organizations (expand=organization).
 * Organizations the partner does not manage, and users without a membership in one, are 404.
 * Stateless over the records it is lent (partner-records.ts); nothing to clean up.
 */
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { objectBody, onlyFields, rolesField, uuidField } from '../accounts/account-rules.js';
import type { Membership } from '../accounts/accounts-face.js';
import type { MembershipService } from '../accounts/membership-service.js';
import type { PartnerRecords } from './partner-records.js';
import type { PartnerOrganizationService } from './partner-organization-service.js';

/** Reads `expand`: absent, or exactly `allowed` (comma-separated lists of it accepted). */
export function parseExpand(value: unknown, allowed: string): boolean {
  if (value === undefined || value === '') return false;
  const parts = typeof value === 'string' ? value.split(',').map((p) => p.trim()) : [];
  if (parts.length === 0 || parts.some((p) => p !== allowed))
    throw new ValidationError('expand', `must be ${allowed}`);
  return true;
}

/** A page of results and their count. */
export interface CountedPage {
  count: number;
  results: unknown[];
}

/** Partner member and membership operations of one emulator. */
export class PartnerMemberService {
  constructor(
    private readonly records: PartnerRecords,
    private readonly memberships: MembershipService,
    private readonly organizations: PartnerOrganizationService,
  ) {}

  list(partnerId: string, orgId: string, expand: boolean, limit: number, offset: number): CountedPage {
    const org = this.organizations.managed(partnerId, orgId);
    const page = this.records.memberships.listByOrganization(org.id, limit, offset);
    return {
      count: this.records.memberships.countByOrganization(org.id),
      results: page.map((m) => this.member(m, expand)),
    };
  }

  /** POST {user, roles}: the user must belong to an organization the partner manages. */
  add(partnerId: string, orgId: string, body: unknown): Record<string, unknown> {
    const org = this.organizations.managed(partnerId, orgId);
    const fields = objectBody(body);
    if (fields['user'] === undefined) throw new ValidationError('user', 'is required');
    if (fields['roles'] === undefined) throw new ValidationError('roles', 'is required');
    const userId = uuidField(fields['user'], 'user');
    const roles = rolesField(fields['roles']);
    if (this.records.memberships.countByUserManaged(userId, partnerId) === 0)
      throw new ValidationError(
        'user',
        'must be a user of an organization this partner manages; invite anyone else with POST /v1/userinvitations/',
      );
    if (this.records.memberships.find(userId, org.id))
      throw new ConflictError('user: already a member of the organization', 'user', 'already_member');
    return this.member(this.memberships.add(org.id, userId, roles), false);
  }

  get(partnerId: string, orgId: string, userId: string, expand: boolean): Record<string, unknown> {
    return this.member(this.membership(partnerId, orgId, userId), expand);
  }

  /** PATCH {roles}: the last admin keeps admin. */
  setRoles(partnerId: string, orgId: string, userId: string, body: unknown): Record<string, unknown> {
    const membership = this.membership(partnerId, orgId, userId);
    const fields = objectBody(body);
    onlyFields(fields, ['roles']);
    if (fields['roles'] === undefined) throw new ValidationError('roles', 'is required');
    return this.member(this.memberships.setRoles(membership, rolesField(fields['roles'])), false);
  }

  remove(partnerId: string, orgId: string, userId: string): void {
    this.memberships.remove(this.membership(partnerId, orgId, userId));
  }

  /** A user's memberships in the partner's organizations; 404 when it has none there. */
  listOfUser(partnerId: string, userId: string, expand: boolean, limit: number, offset: number): CountedPage {
    const count = this.records.memberships.countByUserManaged(userId, partnerId);
    if (count === 0) throw new NotFoundError(`user ${userId}`);
    const page = this.records.memberships.listByUserManaged(userId, partnerId, limit, offset);
    return { count, results: page.map((m) => this.membershipResource(m, expand)) };
  }

  getOfUser(partnerId: string, userId: string, orgId: string, expand: boolean): Record<string, unknown> {
    return this.membershipResource(this.membership(partnerId, orgId, userId), expand);
  }

  private membership(partnerId: string, orgId: string, userId: string): Membership {
    const org = this.organizations.managed(partnerId, orgId);
    const membership = this.records.memberships.find(userId, org.id);
    if (!membership) throw new NotFoundError(`member ${userId}`);
    return membership;
  }

  private member(m: Membership, expand: boolean): Record<string, unknown> {
    if (!expand) return { user: m.userId, roles: m.roles };
    const u = this.records.users.findById(m.userId)!;
    const user = {
      id: u.id,
      email: u.email,
      first_name: u.firstName,
      last_name: u.lastName,
      created: new Date(u.createdAt).toISOString(),
      is_verified: true,
      preferred_language: u.preferredLanguage,
    };
    return { user, roles: m.roles };
  }

  private membershipResource(m: Membership, expand: boolean): Record<string, unknown> {
    if (!expand) return { organization: m.organizationId, roles: m.roles };
    const org = this.records.organizations.findById(m.organizationId)!;
    const organization = {
      id: org.id,
      name: org.name,
      cloud_profile: null,
      owner: org.ownerUserId,
      roles: null,
    };
    return { organization, roles: m.roles };
  }
}
