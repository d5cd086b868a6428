/**
 * The partner API's organizations (/partner/v1/organizations/): a partner creates organizations
 * (with an existing user as admin, or with an invited admin), lists, reads and renames the ones
 * it manages, and deletes them with everything they hold. Organizations the partner does not
 * manage do not exist for it (NotFoundError). Once a delete commits, the organization's stored
 * documents leave the disk and its connectors' open channels close with 4404 "organization
 * deleted". Stateless over the records it is lent (partner-records.ts); nothing to clean up.
 */
import { rm } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  emailField,
  futureDateTimeField,
  objectBody,
  onlyFields,
  oneOfField,
  textField,
  uuidField,
} from '../accounts/account-rules.js';
import type { InvitationService } from '../accounts/invitation-service.js';
import type { MembershipService } from '../accounts/membership-service.js';
import type { CurrencyCode, Organization } from '../accounts/accounts-face.js';
import type { OAuthClientService } from '../clients/oauth-client-service.js';
import type { ConnectorHub } from '../connectors/connector-hub.js';
import type { FileStore } from '../files/file-store.js';
import { CHANNEL_CLOSE } from '../../protocol/connector-channel.js';
import type { PartnerRecords } from './partner-records.js';

const CURRENCIES: readonly CurrencyCode[] = ['USD', 'EUR'];
const LANGUAGES = ['en', 'de'] as const;

/** The organization resource of the partner API. */
export function organizationResource(org: Organization): Record<string, unknown> {
  return { id: org.id, name: org.name, cloud_profile: null, currency_code: org.currencyCode };
}

/** What a delete cleans up once it commits: the documents on disk and the live channels. */
export interface OrganizationLeftovers {
  files: FileStore;
  hub: ConnectorHub;
  /** Only job documents inside this directory are deleted (uploads, registration sheets). */
  dataDir: string;
}

/** The reason an organization's connector channels close with when it is deleted. */
export const ORGANIZATION_DELETED_REASON = 'organization deleted';

/** Partner organization operations of one emulator. */
export class PartnerOrganizationService {
  constructor(
    private readonly records: PartnerRecords,
    private readonly memberships: MembershipService,
    private readonly invitations: InvitationService,
    private readonly clients: OAuthClientService,
    private readonly leftovers: OrganizationLeftovers,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** An organization the partner manages; NotFoundError for any other id. */
  managed(partnerId: string, organizationId: string): Organization {
    const org = this.records.organizations.findById(organizationId);
    if (!org || org.managedBy !== partnerId) throw new NotFoundError(`organization ${organizationId}`);
    return org;
  }

  /** Whether the organization is a partner account (one that may call the partner API). */
  isPartnerAccount(organizationId: string): boolean {
    return this.records.organizations.findById(organizationId)?.isPartner === true;
  }

  /** POST: the admin_user variant or the admin_user_invitation variant (exactly one). */
  create(partnerId: string, body: unknown, baseUrl: string): Record<string, unknown> {
    const fields = objectBody(body);
    const name = this.freeName(fields['name']);
    const currencyCode = oneOfField(fields['currency_code'], 'currency_code', CURRENCIES);
    const hasUser = fields['admin_user'] !== undefined;
    const hasInvitation = fields['admin_user_invitation'] !== undefined;
    if (hasUser === hasInvitation)
      throw new ValidationError('admin_user', 'give exactly one of admin_user and admin_user_invitation');
    return hasUser
      ? this.createWithUser(partnerId, name, currencyCode, fields['admin_user'])
      : this.createWithInvitation(partnerId, name, currencyCode, fields['admin_user_invitation'], baseUrl);
  }

  /** One page of the partner's organizations (created, then name) and their count. */
  list(partnerId: string, limit: number, offset: number): { count: number; results: unknown[] } {
    const page = this.records.organizations.listManaged(partnerId, limit, offset);
    return {
      count: this.records.organizations.countManaged(partnerId),
      results: page.map(organizationResource),
    };
  }

  /** PATCH: name (required, unique); other fields refused. */
  rename(partnerId: string, organizationId: string, body: unknown): Record<string, unknown> {
    const org = this.managed(partnerId, organizationId);
    const fields = objectBody(body);
    onlyFields(fields, ['name']);
    if (fields['name'] === undefined) throw new ValidationError('name', 'is required');
    const name = fields['name'] === org.name ? org.name : this.freeName(fields['name']);
    this.records.organizations.rename(org.id, name);
    return organizationResource({ ...org, name });
  }

  /**
   * Deletes an organization: 409 tenant_mode_multi_clients_exist while it owns a live
   * multi-tenant client; users whose last membership it was are deleted, the others stay in
   * their other organizations; printers, connectors, groups, clients, invitations and jobs go.
   * After the transaction commits, its connectors' channels close (4404, "organization deleted")
   * and its stored documents and job documents (registration sheets) are deleted from disk.
   */
  async delete(partnerId: string, organizationId: string): Promise<void> {
    const org = this.managed(partnerId, organizationId);
    this.clients.assertOrganizationDeletable(org.id);
    const left = this.records.transaction(() => {
      const connectorIds = this.records.connectors.listByOrganization(org.id).map((c) => c.id);
      const files = this.records.storedFiles.listByOrganization(org.id);
      const documents = this.records.jobs.documentPathsOfOrganization(org.id);
      const members = this.records.memberships.listByOrganization(org.id, Number.MAX_SAFE_INTEGER, 0);
      for (const membership of members) this.memberships.detach(membership);
      // What names the organization without a foreign key, each deleted by the domain owning it.
      this.records.jobs.deleteOfOrganization(org.id);
      this.records.storedFiles.deleteOfOrganization(org.id);
      this.records.refreshTokens.deleteOfOrganization(org.id);
      this.clients.forgetOrganization(org.id);
      this.records.organizations.delete(org.id);
      return { connectorIds, files, documents };
    });
    const closed = left.connectorIds.filter((id) =>
      this.leftovers.hub.disconnect(id, CHANNEL_CLOSE.unknownConnector, ORGANIZATION_DELETED_REASON),
    ).length;
    await this.leftovers.files.removeAll(left.files);
    const root = resolve(this.leftovers.dataDir) + sep;
    for (const path of left.documents.filter((p) => resolve(p).startsWith(root)))
      await rm(path, { force: true });
    this.logger.info(
      { organization: org.id, partner: partnerId, channels: closed, files: left.files.length },
      'organization deleted',
    );
  }

  private createWithUser(partnerId: string, name: string, currencyCode: CurrencyCode, value: unknown) {
    const userId = uuidField(value, 'admin_user');
    if (this.records.memberships.countByUserManaged(userId, partnerId) === 0)
      throw new ValidationError('admin_user', 'must be a user of an organization this partner manages');
    const org = this.records.transaction(() => {
      const created = this.records.organizations.create(name, this.clock.now(), {
        currencyCode,
        managedBy: partnerId,
        ownerUserId: userId,
      });
      this.memberships.add(created.id, userId, ['admin', 'user']);
      return created;
    });
    this.logger.info({ organization: org.id, partner: partnerId }, 'organization created');
    return { id: org.id, name: org.name, admin_user: userId };
  }

  private createWithInvitation(
    partnerId: string,
    name: string,
    currencyCode: CurrencyCode,
    value: unknown,
    baseUrl: string,
  ) {
    const input = objectBody(value, 'admin_user_invitation');
    const person = objectBody(input['user'], 'admin_user_invitation.user');
    const invitee = {
      email: emailField(input['email'], 'admin_user_invitation.email'),
      expireAt: futureDateTimeField(
        input['expire_date'],
        'admin_user_invitation.expire_date',
        this.clock.now(),
      ),
      roles: ['admin', 'user'] as const,
      firstName: textField(person['first_name'], 'admin_user_invitation.user.first_name', 150),
      lastName: textField(person['last_name'], 'admin_user_invitation.user.last_name', 150),
      preferredLanguage: oneOfField(
        person['preferred_language'],
        'admin_user_invitation.user.preferred_language',
        LANGUAGES,
      ),
    };
    const { org, invitation } = this.records.transaction(() => {
      const created = this.records.organizations.create(name, this.clock.now(), {
        currencyCode,
        managedBy: partnerId,
      });
      return {
        org: created,
        invitation: this.invitations.invite(created.id, { ...invitee, roles: ['admin', 'user'] }, baseUrl),
      };
    });
    this.logger.info(
      { organization: org.id, partner: partnerId },
      'organization created with an invited admin',
    );
    const user = {
      id: invitation.userId,
      first_name: invitation.firstName,
      last_name: invitation.lastName,
      preferred_language: invitation.preferredLanguage,
    };
    return {
      id: org.id,
      name: org.name,
      admin_user_invitation: { ...this.invitations.resource(invitation), user },
    };
  }

  private freeName(value: unknown): string {
    const name = textField(value, 'name', 255);
    if (this.records.organizations.findByName(name))
      throw new ConflictError('name: an organization of this name exists', 'name', 'name_taken');
    return name;
  }
}
