/**
 * What the console shows, read at one moment for one reader (every organization for the local
 * developer, one for an admin): organizations, printers with status and capabilities,
 * connectors and whether each has its channel open, recent jobs with their live state, held
 * jobs per user, local (copy) jobs, webhook endpoints with their pending and failed deliveries,
 * the mail outbox, OAuth clients, active sign-ins, and the sandbox's own rules and clock. A
 * read-only view: lists come from the owning domains through their faces (sandbox-records.ts)
 * and services (newest first, bounded); states that rules compute (the 24-hour rule of local
 * jobs, connection state) come from the services. Jobs, held jobs and sign-ins show their
 * user's e-mail; one whose user no longer exists is left out. Never a secret: no password,
 * token, client secret or signed URL.
 */
import type { Clock } from '../../../lib/clock.js';
import type { MailOutbox } from '../../accounts/mail-outbox.js';
import type { ConnectorHub } from '../../connectors/connector-hub.js';
import type { TpfmServices } from '../../pull/pull-services.js';
import type { User } from '../../accounts/accounts-face.js';
import { clockState } from '../clock/clock-routes.js';
import type { TestClock } from '../clock/test-clock.js';
import { faultResource } from '../faults/fault-routes.js';
import type { FaultSwitchboard } from '../faults/fault-switchboard.js';
import type { SandboxRecords } from '../sandbox-records.js';
import { consoleWebhooks } from './console-webhooks.js';

/** The console's view; plain JSON. */
export type ConsoleSnapshot = Record<string, unknown>;

const RECENT = 50;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** SQLite's order of text (by code point), which the lists keep. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the snapshot reads besides the context: the sandbox's parts and the records it is lent. */
export interface ConsoleSources {
  clock: TestClock;
  faults: FaultSwitchboard;
  records: SandboxRecords;
}

/** What the snapshot reads of the services: the clock, the channels, pull printing, the mail outbox. */
export interface ConsoleSnapshotContext {
  clock: Clock;
  hub: ConnectorHub;
  pull: TpfmServices;
  mail: MailOutbox;
}

/** Reads the snapshot for a reader of `organizationId` (undefined: every organization). */
export function consoleSnapshot(
  context: ConsoleSnapshotContext,
  sandbox: ConsoleSources,
  organizationId: string | undefined,
): ConsoleSnapshot {
  const { records } = sandbox;
  const emailOf = userEmails(records);
  const organizations = records.organizations.listNames(organizationId);
  const orgName = new Map(organizations.map((o) => [o.id, o.name]));
  const printers = records.printers.summaries(organizationId);
  const printerName = new Map(printers.map((p) => [p.id, p.name]));
  const now = context.clock.now();
  return {
    now: new Date(now).toISOString(),
    organizations,
    printers: printers.map((p) => ({
      id: p.id,
      organization: orgName.get(p.organizationId),
      name: p.name,
      status: p.status,
      connector_id: p.connectorId,
      formats: p.supportedFormats,
      model: `${p.vendorName} ${p.modelName}`.trim(),
      capabilities: p.hasCapabilities ? 'uploaded' : 'defaults',
    })),
    connectors: records.connectors.list(organizationId).map((c) => ({
      id: c.id,
      organization: orgName.get(c.organizationId),
      name: c.readableName,
      version: c.swVersion,
      connected: context.hub.isConnected(c.id),
    })),
    jobs: latestWithUser(
      (limit, offset) => records.jobs.recent(organizationId, limit, offset),
      (j) => emailOf(j.userId),
    ).map(({ row: j, email }) => ({
      id: j.id,
      printer: printerName.get(j.printerId) ?? j.printerId,
      user: email,
      state: j.state,
      document: j.file.name,
      document_available: !j.fileDeleted,
      pages_printed: j.pagesPrinted,
      pages_total: j.pagesTotal,
      error_code: j.errorCode,
      message: j.message,
      created: iso(j.createdAt),
    })),
    held_jobs: context.pull.queue
      .unreleased(organizationId)
      .flatMap((h) => {
        const email = emailOf(h.userId);
        return email === undefined ? [] : [{ h, email }];
      })
      .sort((a, b) => byText(a.email, b.email) || a.h.createdAt - b.h.createdAt)
      .map(({ h, email }) => ({
        id: h.id,
        user: email,
        document: h.displayName,
        on_hold: h.onHold,
        created: iso(h.createdAt),
      })),
    local_jobs: printers.flatMap((p) =>
      context.pull.localJobs.listForPrinter(p.organizationId, p.id, 20).map((j) => ({
        id: j.id,
        printer: p.name,
        type: j.type,
        state: j.state,
        fields: j.fields,
        updated: iso(j.updatedAt),
      })),
    ),
    webhooks: consoleWebhooks(records, organizationId, now, RECENT * 4),
    mail: context.mail.list(20, 0, organizationId === undefined ? {} : { organizationId }).map((m) => ({
      id: m.id,
      to: m.to,
      subject: m.subject,
      created: iso(m.createdAt),
    })),
    oauth_clients: records.clients.listLive(organizationId).map((c) => ({
      client_id: c.clientId,
      organization: orgName.get(c.organizationId),
      name: c.name,
      type: c.clientType,
      grant_types: c.grantTypes,
    })),
    sign_ins: latestWithUser(
      (limit, offset) => records.refreshTokens.liveSignIns(organizationId, now, limit, offset),
      (s) => emailOf(s.userId),
    ).map(({ row: s, email }) => ({
      user: email,
      client_id: s.clientId,
      since: iso(s.since),
      expires: iso(s.expires),
    })),
    faults: sandbox.faults.list(organizationId).map(faultResource),
    clock: clockState(sandbox.clock),
  };
}

/** The e-mail of a user by id (undefined: no such user), each user read once per snapshot. */
function userEmails(records: SandboxRecords): (userId: string) => string | undefined {
  const seen = new Map<string, User | undefined>();
  return (userId) => {
    if (!seen.has(userId)) seen.set(userId, records.users.findById(userId));
    return seen.get(userId)?.email;
  };
}

/**
 * The first RECENT rows, in the order `page` reads them, whose user still exists, each with its
 * user's e-mail: pages are read until RECENT are found or the rows end.
 */
function latestWithUser<T>(
  page: (limit: number, offset: number) => T[],
  emailOf: (row: T) => string | undefined,
): { row: T; email: string }[] {
  const found: { row: T; email: string }[] = [];
  for (let offset = 0; found.length < RECENT; offset += RECENT) {
    const rows = page(RECENT, offset);
    for (const row of rows) {
      const email = emailOf(row);
      if (email !== undefined && found.length < RECENT) found.push({ row, email });
    }
    if (rows.length < RECENT) break;
  }
  return found;
}
