/**
 * What the console shows, read at one moment for one reader (every organization for the local
 * developer, one for an admin): organizations, printers with status and capabilities,
 * connectors and whether each has its channel open, recent jobs with their live state, held
 * jobs per user, local (copy) jobs, webhook endpoints with their pending and failed deliveries,
 * the mail outbox, OAuth clients, active sign-ins, and the sandbox's own rules and clock. A
 * read-only view: lists come straight from the database (newest first, bounded); states that
 * rules compute (the 24-hour rule of local jobs, connection state) come from the services.
 * Never a secret: no password, token, client secret or signed URL.
 */
import type { EmulatorContext } from '../../context.js';
import { clockState } from '../clock/clock-routes.js';
import type { TestClock } from '../clock/test-clock.js';
import { faultResource } from '../faults/fault-routes.js';
import type { FaultSwitchboard } from '../faults/fault-switchboard.js';

/** The console's view; plain JSON. */
export type ConsoleSnapshot = Record<string, unknown>;

const RECENT = 50;
type Row = Record<string, unknown>;
/** Runs a SELECT limited to the reader's organization (by `column`), with more conditions and a tail. */
type Scoped = (sql: string, options?: { column?: string; where?: string[]; tail?: string }) => Row[];
const iso = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);

/** Reads the snapshot for a reader of `organizationId` (undefined: every organization). */
export function consoleSnapshot(
  context: EmulatorContext,
  sandbox: { clock: TestClock; faults: FaultSwitchboard },
  organizationId: string | undefined,
): ConsoleSnapshot {
  const db = context.store.db;
  const scoped: Scoped = (sql, { column = 'organization_id', where = [], tail = '' } = {}) => {
    const conditions = organizationId === undefined ? where : [`${column} = ?`, ...where];
    const clause = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const params = organizationId === undefined ? [] : [organizationId];
    return db.prepare(`${sql} ${clause} ${tail}`).all(...params) as Row[];
  };
  const organizations = scoped('SELECT id, name FROM organizations', { column: 'id', tail: 'ORDER BY name' });
  const orgName = new Map(organizations.map((o) => [o['id'], o['name']]));
  const printers = scoped(
    'SELECT id, organization_id, connector_id, name, status, supported_formats, vendor_name, model_name, properties_json IS NOT NULL AS has_capabilities FROM printers',
    { tail: 'ORDER BY name' },
  );
  const printerName = new Map(printers.map((p) => [p['id'], p['name']]));
  const now = context.clock.now();
  return {
    now: new Date(now).toISOString(),
    organizations,
    printers: printers.map((p) => ({
      id: p['id'],
      organization: orgName.get(p['organization_id']),
      name: p['name'],
      status: p['status'],
      connector_id: p['connector_id'],
      formats: JSON.parse(String(p['supported_formats'])),
      model: `${p['vendor_name']} ${p['model_name']}`.trim(),
      capabilities: p['has_capabilities'] === 1 ? 'uploaded' : 'defaults',
    })),
    connectors: scoped('SELECT id, organization_id, readable_name, status, sw_version FROM connectors', {
      tail: 'ORDER BY readable_name',
    }).map((c) => ({
      id: c['id'],
      organization: orgName.get(c['organization_id']),
      name: c['readable_name'],
      version: c['sw_version'],
      connected: context.hub.isConnected(String(c['id'])),
    })),
    jobs: scoped(
      'SELECT j.id, j.printer_id, u.email AS user, j.state, j.file_name, j.pages_printed, j.pages_total, j.error_code, j.message, j.file_deleted, j.created_at FROM jobs j JOIN users u ON u.id = j.user_id',
      { column: 'j.organization_id', tail: `ORDER BY j.created_at DESC, j.rowid DESC LIMIT ${RECENT}` },
    ).map((j) => ({
      id: j['id'],
      printer: printerName.get(j['printer_id']) ?? j['printer_id'],
      user: j['user'],
      state: j['state'],
      document: j['file_name'],
      document_available: j['file_deleted'] === 0,
      pages_printed: j['pages_printed'],
      pages_total: j['pages_total'],
      error_code: j['error_code'],
      message: j['message'],
      created: iso(j['created_at']),
    })),
    held_jobs: scoped(
      'SELECT h.id, u.email AS user, h.display_name, h.on_hold, h.created_at FROM held_jobs h JOIN users u ON u.id = h.user_id',
      {
        column: 'h.organization_id',
        where: ['h.released_job_id IS NULL'],
        tail: 'ORDER BY u.email, h.created_at',
      },
    ).map((h) => ({
      id: h['id'],
      user: h['user'],
      document: h['display_name'],
      on_hold: h['on_hold'] === 1,
      created: iso(h['created_at']),
    })),
    local_jobs: printers.flatMap((p) =>
      context.pull.localJobs.listForPrinter(String(p['organization_id']), String(p['id']), 20).map((j) => ({
        id: j.id,
        printer: p['name'],
        type: j.type,
        state: j.state,
        fields: j.fields,
        updated: iso(j.updatedAt),
      })),
    ),
    webhooks: webhookEndpoints(scoped, now),
    mail: context.mail.list(20, 0, organizationId === undefined ? {} : { organizationId }).map((m) => ({
      id: m.id,
      to: m.to,
      subject: m.subject,
      created: iso(m.createdAt),
    })),
    oauth_clients: scoped(
      'SELECT client_id, organization_id, name, client_type, grant_types FROM oauth_clients',
      { where: ['deleted_at IS NULL'], tail: 'ORDER BY name' },
    ).map((c) => ({
      client_id: c['client_id'],
      organization: orgName.get(c['organization_id']),
      name: c['name'],
      type: c['client_type'],
      grant_types: JSON.parse(String(c['grant_types'])),
    })),
    sign_ins: scoped(
      'SELECT r.family_id, u.email AS user, r.client_id, MIN(r.created_at) AS since, MAX(r.expires_at) AS expires FROM refresh_tokens r JOIN users u ON u.id = r.user_id',
      {
        column: 'r.organization_id',
        where: ['r.spent_at IS NULL', 'r.revoked_at IS NULL', `r.expires_at > ${Math.floor(now)}`],
        tail: `GROUP BY r.family_id ORDER BY since DESC LIMIT ${RECENT}`,
      },
    ).map((s) => ({
      user: s['user'],
      client_id: s['client_id'],
      since: iso(s['since']),
      expires: iso(s['expires']),
    })),
    faults: sandbox.faults.list(organizationId).map(faultResource),
    clock: clockState(sandbox.clock),
  };
}

function webhookEndpoints(scoped: Scoped, now: number) {
  const deliveries = scoped(
    'SELECT d.endpoint_id, d.event_id, d.status, d.attempts, d.error, d.response_status_code, d.next_attempt_at, d.last_attempt_at FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id',
    { column: 'e.organization_id', tail: `ORDER BY d.last_attempt_at DESC LIMIT ${RECENT * 4}` },
  );
  return scoped('SELECT id, name, url, disabled FROM webhook_endpoints', { tail: 'ORDER BY created_at' }).map(
    (e) => ({
      id: e['id'],
      name: e['name'],
      url: e['url'],
      disabled: e['disabled'] === 1,
      deliveries: deliveries
        .filter((d) => d['endpoint_id'] === e['id'])
        .map((d) => ({
          event_id: d['event_id'],
          status: d['status'],
          attempts: d['attempts'],
          error: d['error'],
          response_status_code: d['response_status_code'],
          last_attempt: iso(d['last_attempt_at']),
          next_attempt:
            typeof d['next_attempt_at'] === 'number' && d['next_attempt_at'] > now
              ? iso(d['next_attempt_at'])
              : null,
        })),
    }),
  );
}
