/**
 * OAuth clients table: hashed secrets (scrypt, compared in constant time), grant types, allowed
 * scopes. Deleting marks the row so the client gets no new tokens. Borrowing the database
 * handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';

/** How a client came to be: seeded by the service scripts, or created through /v1/oauth-clients/. */
export type ClientOrigin = 'seed' | 'api';

/** Clients the client-management API shows (not legacy, protected or partner-scoped). */
const VISIBLE = 'deleted_at IS NULL AND protected = 0 AND partner_scoped = 0 AND tenant_mode IS NOT NULL';

/** OAuth client types (RFC 6749 2.1). */
export type ClientType = 'public' | 'confidential';

/** A stored OAuth client (the secret only as a hash). */
export interface OAuthClient {
  clientId: string;
  organizationId: string;
  /** False for a public client (empty secret). */
  hasSecret: boolean;
  name: string;
  externalDescription: string;
  clientType: ClientType;
  grantTypes: string[];
  redirectUrls: string[];
  /** Empty: every scope of the service. */
  allowedScopes: string[];
  tenantMode: 'single' | 'multi' | null;
  protected: boolean;
  createdAt: number;
  deletedAt: number | null;
  origin: ClientOrigin;
  /** Managed by a partner: hidden from the organization's client API. */
  partnerScoped: boolean;
}

/** Changeable fields of a client (PATCH). */
export interface OAuthClientChanges {
  name?: string;
  externalDescription?: string;
  redirectUrls?: string[];
  allowedScopes?: string[];
}

/** Input of OAuthClientRepo.create. */
export interface NewOAuthClient {
  clientId: string;
  organizationId: string;
  /** The secret's scrypt hash (SecretHasher.hash); null: a public client. */
  secretHash: string | null;
  name: string;
  externalDescription: string;
  clientType: ClientType;
  grantTypes: string[];
  redirectUrls: string[];
  allowedScopes: string[];
  tenantMode: 'single' | 'multi' | null;
  protected: boolean;
  /** Default seed. */
  origin?: ClientOrigin;
  /** Default false. */
  partnerScoped?: boolean;
}

interface ClientRow {
  client_id: string;
  organization_id: string;
  secret_hash: string | null;
  name: string;
  external_description: string;
  client_type: string;
  grant_types: string;
  redirect_urls: string;
  allowed_scopes: string;
  tenant_mode: string | null;
  protected: number;
  created_at: number;
  deleted_at: number | null;
  origin: string;
  partner_scoped: number;
}

function toClient(r: ClientRow): OAuthClient {
  return {
    clientId: r.client_id,
    organizationId: r.organization_id,
    hasSecret: r.secret_hash !== null,
    name: r.name,
    externalDescription: r.external_description,
    clientType: r.client_type as ClientType,
    grantTypes: JSON.parse(r.grant_types) as string[],
    redirectUrls: JSON.parse(r.redirect_urls) as string[],
    allowedScopes: JSON.parse(r.allowed_scopes) as string[],
    tenantMode: r.tenant_mode as OAuthClient['tenantMode'],
    protected: r.protected === 1,
    createdAt: r.created_at,
    deletedAt: r.deleted_at,
    origin: r.origin as ClientOrigin,
    partnerScoped: r.partner_scoped === 1,
  };
}

/** Reads and writes OAuth clients. */
export class OAuthClientRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts a client with an already hashed secret (null: a public client). */
  create(input: NewOAuthClient, now: number): OAuthClient {
    this.db
      .prepare(
        `INSERT INTO oauth_clients (client_id, organization_id, secret_hash, name, external_description,
           client_type, grant_types, redirect_urls, allowed_scopes, tenant_mode, protected, created_at,
           origin, partner_scoped)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.clientId,
        input.organizationId,
        input.secretHash,
        input.name,
        input.externalDescription,
        input.clientType,
        JSON.stringify(input.grantTypes),
        JSON.stringify(input.redirectUrls),
        JSON.stringify(input.allowedScopes),
        input.tenantMode,
        input.protected ? 1 : 0,
        now,
        input.origin ?? 'seed',
        input.partnerScoped ? 1 : 0,
      );
    return this.findById(input.clientId)!;
  }

  /** A client by id, deleted ones included (check `deletedAt`). */
  findById(clientId: string): OAuthClient | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_clients WHERE client_id = ?').get(clientId) as
      | ClientRow
      | undefined;
    return row && toClient(row);
  }

  listByOrganization(organizationId: string): OAuthClient[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM oauth_clients WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at',
      )
      .all(organizationId) as ClientRow[];
    return rows.map(toClient);
  }

  /** The live (not deleted) clients of one organization, or of every one (undefined), by name. */
  listLive(organizationId?: string): OAuthClient[] {
    const { clause, params } = organizationScope('organization_id', organizationId, ['deleted_at IS NULL']);
    const rows = this.db
      .prepare(`SELECT * FROM oauth_clients ${clause} ORDER BY name`)
      .all(...params) as ClientRow[];
    return rows.map(toClient);
  }

  /** The redirect URLs of every live (not deleted) client of every organization, in one query. */
  liveRedirectUrls(): string[] {
    const rows = this.db
      .prepare('SELECT redirect_urls FROM oauth_clients WHERE deleted_at IS NULL')
      .all() as { redirect_urls: string }[];
    return rows.flatMap((row) => JSON.parse(row.redirect_urls) as string[]);
  }

  /** A live (not deleted) client with its stored secret hash (null: a public client). */
  credentials(clientId: string): { client: OAuthClient; secretHash: string | null } | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_clients WHERE client_id = ?').get(clientId) as
      | ClientRow
      | undefined;
    if (!row || row.deleted_at !== null) return undefined;
    return { client: toClient(row), secretHash: row.secret_hash };
  }

  /** Live clients the client API shows for an organization: created desc, then client_id. */
  listVisible(organizationId: string, limit: number, offset: number): OAuthClient[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM oauth_clients WHERE organization_id = ? AND ${VISIBLE}
         ORDER BY created_at DESC, client_id LIMIT ? OFFSET ?`,
      )
      .all(organizationId, limit, offset) as ClientRow[];
    return rows.map(toClient);
  }

  /** Number of clients listVisible can return for an organization. */
  countVisible(organizationId: string): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM oauth_clients WHERE organization_id = ? AND ${VISIBLE}`)
      .get(organizationId) as { n: number };
    return row.n;
  }

  /** A client the client API may show to `organizationId`, else undefined (404 for the caller). */
  findVisible(organizationId: string, clientId: string): OAuthClient | undefined {
    const row = this.db
      .prepare(`SELECT * FROM oauth_clients WHERE client_id = ? AND organization_id = ? AND ${VISIBLE}`)
      .get(clientId, organizationId) as ClientRow | undefined;
    return row && toClient(row);
  }

  /** Live clients an organization created through the API (the 100-client limit). */
  countApiCreated(organizationId: string): number {
    const row = this.db
      .prepare(
        "SELECT COUNT(*) AS n FROM oauth_clients WHERE organization_id = ? AND origin = 'api' AND deleted_at IS NULL",
      )
      .get(organizationId) as { n: number };
    return row.n;
  }

  /** Whether an organization owns a live multi-tenant client (blocks deleting the organization). */
  hasLiveMultiTenant(organizationId: string): boolean {
    const row = this.db
      .prepare(
        "SELECT 1 FROM oauth_clients WHERE organization_id = ? AND tenant_mode = 'multi' AND deleted_at IS NULL",
      )
      .get(organizationId);
    return row !== undefined;
  }

  /** Applies the changed fields of a PATCH and returns the client. */
  update(clientId: string, changes: OAuthClientChanges): OAuthClient | undefined {
    const sets: string[] = [];
    const values: string[] = [];
    const add = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      sets.push(`${column} = ?`);
      values.push(value);
    };
    add('name', changes.name);
    add('external_description', changes.externalDescription);
    add('redirect_urls', changes.redirectUrls && JSON.stringify(changes.redirectUrls));
    add('allowed_scopes', changes.allowedScopes && JSON.stringify(changes.allowedScopes));
    if (sets.length > 0) {
      this.db
        .prepare(`UPDATE oauth_clients SET ${sets.join(', ')} WHERE client_id = ?`)
        .run(...values, clientId);
    }
    return this.findById(clientId);
  }

  /** Marks the client deleted: it can no longer obtain tokens. */
  markDeleted(clientId: string, now: number): void {
    this.db.prepare('UPDATE oauth_clients SET deleted_at = ? WHERE client_id = ?').run(now, clientId);
  }
}
