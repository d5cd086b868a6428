/**
 * OAuth client management for organization admins (spec section C): create public and
 * confidential clients (validation by protocol/oauth-client-rules.ts; the secret returned once,
 * stored as a scrypt hash), list (created desc, then client_id; legacy, protected and
 * partner-scoped clients hidden), read, PATCH, delete (at once: no new token or refresh; access
 * tokens already issued live until expiry), the creation limits, and the organization-delete
 * rule `assertOrganizationDeletable`. Stateless over the store; nothing to clean up.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  type ClientType,
  validateClientPatch,
  validateNewClient,
} from '../../protocol/oauth-client-rules.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { RefreshTokenRevoker } from '../oauth/oauth-face.js';
import type { OAuthClient } from './oauth-client-repo.js';
import { randomToken, type SecretHasher } from '../store/secret-hash.js';
import { ClientCreationLimits, type Creator } from './client-creation-limits.js';

/** The OAuth client resource of the spec (client_secret only in the creation response). */
export interface OAuthClientResource {
  client_id: string;
  client_secret?: string;
  name: string;
  external_description: string;
  redirect_urls: string[];
  allowed_scopes: string[];
  grant_types: string[];
  client_type: ClientType;
  tenant_mode: 'single' | 'multi' | null;
}

/** A list entry: only these fields (spec). */
export type OAuthClientListEntry = Pick<
  OAuthClientResource,
  'client_id' | 'name' | 'client_type' | 'grant_types' | 'tenant_mode'
>;

/** The resource form of a stored client. */
export function clientResource(client: OAuthClient, secret?: string): OAuthClientResource {
  return {
    client_id: client.clientId,
    ...(secret === undefined ? {} : { client_secret: secret }),
    name: client.name,
    external_description: client.externalDescription,
    redirect_urls: client.redirectUrls,
    allowed_scopes: client.allowedScopes,
    grant_types: client.grantTypes,
    client_type: client.clientType,
    tenant_mode: client.tenantMode,
  };
}

/** Client management of one emulator. */
export class OAuthClientService {
  private readonly limits: ClientCreationLimits;

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly hasher: SecretHasher,
    /** Revokes the refresh tokens of a deleted client. */
    private readonly refreshTokens: RefreshTokenRevoker,
  ) {
    this.limits = new ClientCreationLimits(store, clock);
  }

  /** Creates a client in the creator's organization; confidential clients get their secret once. */
  async create(creator: Creator, clientType: ClientType, body: unknown): Promise<OAuthClientResource> {
    this.limits.check(creator);
    const settings = validateNewClient(clientType, body);
    const clientId = randomBytes(16).toString('hex');
    const secret = clientType === 'confidential' ? randomToken(32) : '';
    const secretHash = secret === '' ? null : await this.hasher.hash(secret);
    const client = this.store.transaction(() => {
      // Checked again: other creations may have landed while the secret was hashed.
      this.limits.check(creator);
      const created = this.store.clients.create(
        {
          clientId,
          organizationId: creator.organizationId,
          secretHash,
          name: settings.name,
          externalDescription: settings.externalDescription,
          clientType,
          grantTypes: settings.grantTypes,
          redirectUrls: settings.redirectUrls,
          allowedScopes: settings.allowedScopes,
          tenantMode: settings.tenantMode,
          protected: false,
          origin: 'api',
        },
        this.clock.now(),
      );
      this.limits.record(creator, clientId);
      return created;
    });
    this.logger.info({ client: clientId, clientType }, 'oauth client created');
    return clientResource(client, clientType === 'confidential' ? secret : undefined);
  }

  /** One page of the organization's visible clients and their total count. */
  list(
    organizationId: string,
    limit: number,
    offset: number,
  ): { count: number; results: OAuthClientListEntry[] } {
    const clients = this.store.clients.listVisible(organizationId, limit, offset);
    return {
      count: this.store.clients.countVisible(organizationId),
      results: clients.map((c) => ({
        client_id: c.clientId,
        name: c.name,
        client_type: c.clientType,
        grant_types: c.grantTypes,
        tenant_mode: c.tenantMode,
      })),
    };
  }

  /** The client's current configuration; NotFoundError when hidden, deleted or another organization's. */
  get(organizationId: string, clientId: string): OAuthClientResource {
    return clientResource(this.visible(organizationId, clientId));
  }

  /** Applies a PATCH (only name, external_description, redirect_urls, allowed_scopes). */
  patch(organizationId: string, clientId: string, body: unknown): OAuthClientResource {
    const client = this.visible(organizationId, clientId);
    const patch = validateClientPatch(body, { clientType: client.clientType, grantTypes: client.grantTypes });
    const updated = this.store.clients.update(clientId, patch);
    this.logger.info({ client: clientId, fields: Object.keys(patch) }, 'oauth client updated');
    return clientResource(updated ?? client);
  }

  /** Deletes at once: refresh tokens revoked, no new tokens; issued access tokens live until expiry. */
  delete(organizationId: string, clientId: string): void {
    this.visible(organizationId, clientId);
    const now = this.clock.now();
    this.store.transaction(() => {
      this.store.clients.markDeleted(clientId, now);
      this.refreshTokens.revokeClient(clientId, now);
    });
    this.logger.info({ client: clientId }, 'oauth client deleted');
  }

  /**
   * The organization-delete rule: an organization that owns a live multi-tenant client cannot be
   * deleted (409 tenant_mode_multi_clients_exist). The partner API's delete calls this first.
   */
  assertOrganizationDeletable(organizationId: string): void {
    if (this.store.clients.hasLiveMultiTenant(organizationId)) {
      throw new ConflictError(
        'the organization owns a multi-tenant OAuth client; delete that client first',
        undefined,
        'tenant_mode_multi_clients_exist',
      );
    }
  }

  /** Forgets the client-creation log of an organization being deleted (in the caller's transaction). */
  forgetOrganization(organizationId: string): void {
    this.limits.forgetOrganization(organizationId);
  }

  private visible(organizationId: string, clientId: string): OAuthClient {
    const client = this.store.clients.findVisible(organizationId, clientId);
    if (!client) throw new NotFoundError(`OAuth client ${clientId}`);
    return client;
  }
}
