/**
 * The emulator database's numbered migrations. Each entry brings the schema to its `version`;
 * the runner (store/database.ts) applies the pending ones in order, one transaction each, and
 * records them in `schema_migrations`. Append new migrations; never edit an applied one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, in version order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'organizations, users, cards, oauth clients, tokens, signing keys',
    sql: `
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        first_name TEXT NOT NULL DEFAULT '',
        last_name TEXT NOT NULL DEFAULT '',
        roles TEXT NOT NULL,
        pull_printing_enabled INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE user_cards (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        card_number TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (organization_id, card_number)
      );
      CREATE TABLE oauth_clients (
        client_id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        secret_hash TEXT,
        name TEXT NOT NULL,
        external_description TEXT NOT NULL DEFAULT '',
        client_type TEXT NOT NULL,
        grant_types TEXT NOT NULL,
        redirect_urls TEXT NOT NULL,
        allowed_scopes TEXT NOT NULL,
        tenant_mode TEXT,
        protected INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        deleted_at INTEGER
      );
      CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        spent_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY,
        algorithm TEXT NOT NULL,
        private_jwk TEXT NOT NULL,
        public_jwk TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        active INTEGER NOT NULL DEFAULT 1
      );
      CREATE TABLE printer_settings (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        printer_name TEXT NOT NULL,
        pull_printing_password_hash TEXT,
        PRIMARY KEY (organization_id, printer_name)
      );`,
  },
  {
    version: 2,
    name: 'connectors, printers, jobs, job events',
    sql: `
      CREATE TABLE connectors (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        serial_string TEXT,
        readable_name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        type TEXT NOT NULL,
        tpuid INTEGER NOT NULL UNIQUE,
        status TEXT NOT NULL,
        location TEXT,
        hostname TEXT NOT NULL,
        internal_ip TEXT,
        external_ip TEXT,
        os_type TEXT NOT NULL,
        sw_version TEXT NOT NULL,
        management_url TEXT,
        supported_formats TEXT NOT NULL,
        registered_user_id TEXT NOT NULL,
        registered_client_id TEXT NOT NULL,
        last_seen_online INTEGER NOT NULL,
        last_printer_update INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (organization_id, serial_string),
        UNIQUE (organization_id, readable_name)
      );
      CREATE TABLE printers (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        connector_id TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        status TEXT NOT NULL,
        tp_id INTEGER NOT NULL,
        supported_formats TEXT NOT NULL,
        vendor_name TEXT NOT NULL DEFAULT '',
        model_name TEXT NOT NULL DEFAULT '',
        location TEXT NOT NULL DEFAULT '',
        pnp_id TEXT NOT NULL DEFAULT '',
        driver_id TEXT,
        manual_driver_id TEXT,
        properties_json TEXT,
        properties_updated_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (organization_id, name),
        UNIQUE (connector_id, tp_id)
      );
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        state TEXT NOT NULL,
        file_path TEXT NOT NULL,
        file_size INTEGER NOT NULL,
        file_sha256 TEXT NOT NULL,
        file_extension TEXT NOT NULL,
        content_type TEXT NOT NULL,
        file_name TEXT NOT NULL,
        ticket_json TEXT NOT NULL,
        delete_after_print INTEGER NOT NULL,
        file_deleted INTEGER NOT NULL DEFAULT 0,
        claimed_by TEXT,
        pages_printed INTEGER NOT NULL DEFAULT 0,
        pages_total INTEGER NOT NULL DEFAULT 0,
        printer_job_id TEXT,
        error_code INTEGER,
        message TEXT,
        last_seq INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX jobs_printer_state ON jobs(printer_id, state);
      CREATE TABLE job_events (
        event_id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        at TEXT NOT NULL,
        body_json TEXT NOT NULL,
        applied INTEGER NOT NULL,
        received_at INTEGER NOT NULL
      );
      CREATE INDEX job_events_job ON job_events(job_id, seq);`,
  },
  {
    version: 3,
    name: 'pull printing: queue printers, held jobs, local jobs, registration codes',
    sql: `
      CREATE TABLE pull_queues (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        connector_id TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        printer_id TEXT NOT NULL REFERENCES printers(id) ON DELETE CASCADE
      );
      CREATE TABLE held_jobs (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        file_name TEXT NOT NULL,
        display_name TEXT NOT NULL,
        driver_name TEXT NOT NULL,
        file_path TEXT NOT NULL,
        file_size INTEGER NOT NULL,
        file_sha256 TEXT NOT NULL,
        file_extension TEXT NOT NULL,
        content_type TEXT NOT NULL,
        ticket_json TEXT NOT NULL,
        on_hold INTEGER NOT NULL DEFAULT 0,
        released_job_id TEXT,
        created_at INTEGER NOT NULL,
        modified_at INTEGER NOT NULL
      );
      CREATE INDEX held_jobs_user ON held_jobs(user_id, created_at);
      CREATE TABLE local_jobs (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        printer_id TEXT NOT NULL,
        type TEXT NOT NULL,
        state TEXT NOT NULL,
        fields_json TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE registration_codes (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        code TEXT NOT NULL,
        card_number TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        print_job_id TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        claimed_by TEXT,
        PRIMARY KEY (organization_id, code)
      );`,
  },
  {
    version: 4,
    name: 'oauth server: client origin, pairings, authorization codes, sessions, creation log, revoked tokens',
    sql: `
      ALTER TABLE oauth_clients ADD COLUMN origin TEXT NOT NULL DEFAULT 'seed';
      ALTER TABLE oauth_clients ADD COLUMN partner_scoped INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE oauth_pairings (
        code_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        scopes TEXT NOT NULL,
        interval_s INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        last_polled_at INTEGER,
        user_id TEXT,
        decision TEXT,
        decided_at INTEGER,
        consumed_at INTEGER
      );
      CREATE TABLE oauth_codes (
        code_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        scopes TEXT NOT NULL,
        code_challenge TEXT,
        nonce TEXT,
        family_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      CREATE TABLE oauth_sessions (
        id_hash TEXT PRIMARY KEY,
        user_id TEXT,
        csrf_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE TABLE oauth_client_creations (
        admin_user_id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX oauth_client_creations_admin ON oauth_client_creations(admin_user_id, created_at);
      CREATE TABLE revoked_access_tokens (
        jti TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      );`,
  },
  {
    version: 5,
    name: 'printer capabilities (defaults, customs, simplified customs), driver assignment states',
    sql: `
      CREATE TABLE printer_capabilities (
        printer_id TEXT PRIMARY KEY REFERENCES printers(id) ON DELETE CASCADE,
        defaults_json TEXT,
        custom_json TEXT NOT NULL DEFAULT '{}',
        simplified_json TEXT NOT NULL DEFAULT '{}',
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE printer_driver_states (
        printer_id TEXT PRIMARY KEY REFERENCES printers(id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );`,
  },
  {
    version: 6,
    name: 'held-job releases outlive the held job, so Status of its id keeps answering',
    sql: `
      CREATE TABLE held_job_releases (
        held_job_id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        released_job_id TEXT NOT NULL,
        released_at INTEGER NOT NULL
      );`,
  },
  {
    version: 7,
    name: 'records of stored documents (formerly a JSON file beside each document)',
    sql: `
      CREATE TABLE stored_files (
        file_id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        path TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        error TEXT,
        committed_json TEXT
      );`,
  },
  {
    version: 8,
    name: 'printing groups, memberships, printer-group assignments, printing user settings',
    sql: `
      CREATE TABLE printing_groups (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        local_printing_enabled INTEGER NOT NULL DEFAULT 0,
        myprinters_enabled INTEGER NOT NULL DEFAULT 0,
        origin_provider TEXT NOT NULL DEFAULT 'local',
        created_at INTEGER NOT NULL
      );
      CREATE INDEX printing_groups_org ON printing_groups(organization_id, created_at);
      CREATE TABLE group_members (
        group_id TEXT NOT NULL REFERENCES printing_groups(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, user_id)
      );
      CREATE INDEX group_members_user ON group_members(user_id);
      CREATE TABLE printer_group_assignments (
        printer_id TEXT NOT NULL REFERENCES printers(id) ON DELETE CASCADE,
        group_id TEXT NOT NULL REFERENCES printing_groups(id) ON DELETE CASCADE,
        force_chosen INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (printer_id, group_id)
      );
      CREATE INDEX printer_group_assignments_group ON printer_group_assignments(group_id);
      ALTER TABLE users ADD COLUMN local_printing_enabled INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE users ADD COLUMN self_service_enabled INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE users ADD COLUMN myprinters_enabled INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 14,
    name: 'webhook endpoints, data protection settings, events, the delivery queue and retry-all runs',
    sql: `
      CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        topics_json TEXT NOT NULL,
        disabled INTEGER NOT NULL DEFAULT 0,
        authentication_scheme TEXT,
        basic_username TEXT NOT NULL DEFAULT '',
        basic_password_sealed TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX webhook_endpoints_org ON webhook_endpoints(organization_id, created_at);
      CREATE TABLE webhook_settings (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        file_name_obfuscated INTEGER NOT NULL DEFAULT 0,
        user_email_disabled INTEGER NOT NULL DEFAULT 0,
        user_name_disabled INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE webhook_events (
        event_id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        topic TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        body_json TEXT NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id TEXT NOT NULL REFERENCES webhook_events(event_id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        first_attempt_at INTEGER,
        last_attempt_at INTEGER,
        next_attempt_at INTEGER,
        error TEXT,
        response_status_code INTEGER,
        in_retry_all INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (endpoint_id, event_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(endpoint_id, next_attempt_at)
        WHERE next_attempt_at IS NOT NULL;
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);
      CREATE INDEX webhook_deliveries_retry_all ON webhook_deliveries(endpoint_id) WHERE in_retry_all = 1;
      CREATE TABLE webhook_retry_runs (
        endpoint_id TEXT PRIMARY KEY REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL
      );`,
  },
  {
    version: 16,
    name: 'local jobs remember the Idempotency-Key of their CreateLocalJob, so a resend answers the same job',
    sql: `ALTER TABLE local_jobs ADD COLUMN idempotency_key TEXT;
      CREATE UNIQUE INDEX local_jobs_idempotency ON local_jobs(user_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
      CREATE INDEX local_jobs_printer ON local_jobs(organization_id, printer_id, created_at);`,
  },
  {
    version: 17,
    name: 'accounts and partners: memberships, invitations, mail outbox, managed organizations',
    sql: `
      ALTER TABLE organizations ADD COLUMN currency_code TEXT NOT NULL DEFAULT 'EUR';
      ALTER TABLE organizations ADD COLUMN is_partner INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE organizations ADD COLUMN managed_by TEXT REFERENCES organizations(id) ON DELETE SET NULL;
      ALTER TABLE organizations ADD COLUMN owner_user_id TEXT;
      ALTER TABLE users ADD COLUMN preferred_language TEXT NOT NULL DEFAULT 'en';
      CREATE TABLE memberships (
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        roles TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, organization_id)
      );
      CREATE INDEX memberships_org ON memberships(organization_id, created_at);
      INSERT INTO memberships (user_id, organization_id, roles, created_at)
        SELECT id, organization_id, roles, created_at FROM users;
      CREATE TABLE invitations (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE,
        first_name TEXT NOT NULL DEFAULT '',
        last_name TEXT NOT NULL DEFAULT '',
        preferred_language TEXT NOT NULL DEFAULT 'en',
        roles TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        expire_at INTEGER NOT NULL,
        accepted_at INTEGER,
        accepted_user_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX invitations_org ON invitations(organization_id, created_at);
      CREATE TABLE mail_outbox (
        id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,
        recipient TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        link TEXT,
        created_at INTEGER NOT NULL
      );`,
  },
  {
    version: 18,
    name: 'revoked sign-ins (refresh-token families), so their access tokens stop at once',
    sql: `
      CREATE TABLE revoked_families (
        family_id TEXT PRIMARY KEY,
        revoked_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 19,
    name: 'refresh retry answers survive a restart; registration codes remember when their sheet was last printed',
    sql: `
      ALTER TABLE registration_codes ADD COLUMN printed_at INTEGER;
      CREATE TABLE refresh_retries (
        id TEXT PRIMARY KEY,
        sealed_answer TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX refresh_retries_expiry ON refresh_retries(expires_at);
    `,
  },
  {
    version: 20,
    name: "the organization of each outbox mail (an admin reads only its own organization's mails)",
    sql: `ALTER TABLE mail_outbox ADD COLUMN organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE;
      CREATE INDEX mail_outbox_org ON mail_outbox(organization_id, seq);`,
  },
  {
    version: 21,
    name: 'the webhook queue in one table keyed by (endpoint, status, event): delivering a queued event deletes one row and one index entry',
    // Each delivery carries its event (topic, time, body), so a delivered event leaves no
    // event row to clean up. Queued rows are in one index only, the key: they are read in key
    // order (UUIDv7 event ids are time-ordered) and deleted by key. Only retries (status
    // pending) are indexed by due time, and only rows of a retry-all run by endpoint. A rowid
    // table (the bodies in its leaves) with a separate key index deletes faster than a table
    // without rowid, whose interior pages would hold whole rows. The copy keeps every delivery
    // with its event; an event no delivery refers to any more was unreachable and is not kept.
    sql: `
      CREATE TABLE webhook_queue (
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status IN ('queued', 'pending', 'failed')),
        event_id TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        first_attempt_at INTEGER,
        last_attempt_at INTEGER,
        next_attempt_at INTEGER,
        error TEXT,
        response_status_code INTEGER,
        in_retry_all INTEGER NOT NULL DEFAULT 0,
        topic TEXT NOT NULL,
        event_created_at INTEGER NOT NULL,
        body_json TEXT NOT NULL
      );
      INSERT INTO webhook_queue (endpoint_id, status, event_id, attempts, first_attempt_at, last_attempt_at,
          next_attempt_at, error, response_status_code, in_retry_all, topic, event_created_at, body_json)
        SELECT d.endpoint_id, d.status, d.event_id, d.attempts, d.first_attempt_at, d.last_attempt_at,
          d.next_attempt_at, d.error, d.response_status_code, d.in_retry_all, e.topic, e.created_at, e.body_json
        FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
        ORDER BY d.endpoint_id, d.status, d.event_id;
      DROP TABLE webhook_deliveries;
      DROP TABLE webhook_events;
      ALTER TABLE webhook_queue RENAME TO webhook_deliveries;
      CREATE UNIQUE INDEX webhook_deliveries_key ON webhook_deliveries(endpoint_id, status, event_id);
      CREATE INDEX webhook_deliveries_retry_due ON webhook_deliveries(endpoint_id, next_attempt_at)
        WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_retry_all ON webhook_deliveries(endpoint_id) WHERE in_retry_all = 1;`,
  },
];
