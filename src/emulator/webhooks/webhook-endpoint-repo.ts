/**
 * Webhook endpoints and each organization's data protection settings. The Basic password is
 * stored sealed (webhook-secret-box.ts); this repository only moves the sealed text. Borrowing
 * the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { organizationScope } from '../store/organization-scope.js';

/** The topics of the spec. */
export const WEBHOOK_TOPICS = ['printjob_succeeded', 'printjob_failed'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

/** A stored endpoint. */
export interface WebhookEndpointRecord {
  id: string;
  organizationId: string;
  name: string;
  url: string;
  topics: WebhookTopic[];
  disabled: boolean;
  authenticationScheme: 'basic' | null;
  basicUsername: string;
  /** The sealed Basic password, or null when none is set. */
  basicPasswordSealed: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The data protection settings of an organization (all false by default). */
export interface WebhookSettings {
  file_name_obfuscated: boolean;
  user_email_disabled: boolean;
  user_name_disabled: boolean;
}

interface EndpointRow {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  topics_json: string;
  disabled: number;
  authentication_scheme: string | null;
  basic_username: string;
  basic_password_sealed: string | null;
  created_at: number;
  updated_at: number;
}

function toRecord(r: EndpointRow): WebhookEndpointRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    url: r.url,
    topics: JSON.parse(r.topics_json) as WebhookTopic[],
    disabled: r.disabled === 1,
    authenticationScheme: r.authentication_scheme === 'basic' ? 'basic' : null,
    basicUsername: r.basic_username,
    basicPasswordSealed: r.basic_password_sealed,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Reads and writes webhook endpoints and settings. */
export class WebhookEndpointRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts or replaces an endpoint (the service computes the whole record). */
  save(e: WebhookEndpointRecord): void {
    this.db
      .prepare(
        `INSERT INTO webhook_endpoints (id, organization_id, name, url, topics_json, disabled,
           authentication_scheme, basic_username, basic_password_sealed, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, url = excluded.url,
           topics_json = excluded.topics_json, disabled = excluded.disabled,
           authentication_scheme = excluded.authentication_scheme, basic_username = excluded.basic_username,
           basic_password_sealed = excluded.basic_password_sealed, updated_at = excluded.updated_at`,
      )
      .run(
        e.id,
        e.organizationId,
        e.name,
        e.url,
        JSON.stringify(e.topics),
        e.disabled ? 1 : 0,
        e.authenticationScheme,
        e.basicUsername,
        e.basicPasswordSealed,
        e.createdAt,
        e.updatedAt,
      );
  }

  findById(id: string): WebhookEndpointRecord | undefined {
    const row = this.db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?').get(id) as
      | EndpointRow
      | undefined;
    return row && toRecord(row);
  }

  /** The endpoints of one organization, or of every one (undefined), oldest first. */
  list(organizationId?: string): WebhookEndpointRecord[] {
    const { clause, params } = organizationScope('organization_id', organizationId);
    const rows = this.db
      .prepare(`SELECT * FROM webhook_endpoints ${clause} ORDER BY created_at`)
      .all(...params) as EndpointRow[];
    return rows.map(toRecord);
  }

  /** A page of the organization's endpoints, oldest first, and their total count. */
  page(orgId: string, limit: number, offset: number): { count: number; rows: WebhookEndpointRecord[] } {
    const { n } = this.db
      .prepare('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE organization_id = ?')
      .get(orgId) as { n: number };
    const rows = this.db
      .prepare(
        'SELECT * FROM webhook_endpoints WHERE organization_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
      )
      .all(orgId, limit, offset) as EndpointRow[];
    return { count: n, rows: rows.map(toRecord) };
  }

  /** Ids of the organization's enabled endpoints subscribed to `topic` (read for every finished job). */
  subscriberIds(orgId: string, topic: WebhookTopic): string[] {
    return this.db
      .prepare(
        `SELECT id FROM webhook_endpoints WHERE organization_id = ? AND disabled = 0
           AND EXISTS (SELECT 1 FROM json_each(topics_json) WHERE value = ?) ORDER BY created_at, id`,
      )
      .pluck(true)
      .all(orgId, topic) as string[];
  }

  /** Deletes an endpoint (its deliveries and retry run go with it); false when unknown. */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM webhook_endpoints WHERE id = ?').run(id).changes === 1;
  }

  /** The organization's settings (defaults when never set). */
  settings(orgId: string): WebhookSettings {
    const row = this.db
      .prepare(
        `SELECT file_name_obfuscated AS f, user_email_disabled AS e, user_name_disabled AS n
         FROM webhook_settings WHERE organization_id = ?`,
      )
      .get(orgId) as { f: number; e: number; n: number } | undefined;
    return {
      file_name_obfuscated: row?.f === 1,
      user_email_disabled: row?.e === 1,
      user_name_disabled: row?.n === 1,
    };
  }

  /** Stores the organization's settings. */
  saveSettings(orgId: string, s: WebhookSettings): void {
    this.db
      .prepare(
        `INSERT INTO webhook_settings (organization_id, file_name_obfuscated, user_email_disabled, user_name_disabled)
         VALUES (?, ?, ?, ?) ON CONFLICT(organization_id) DO UPDATE SET
           file_name_obfuscated = excluded.file_name_obfuscated,
           user_email_disabled = excluded.user_email_disabled, user_name_disabled = excluded.user_name_disabled`,
      )
      .run(
        orgId,
        s.file_name_obfuscated ? 1 : 0,
        s.user_email_disabled ? 1 : 0,
        s.user_name_disabled ? 1 : 0,
      );
  }
}
