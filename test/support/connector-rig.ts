/**
 * An emulator with one registered connector and one printer of it, as the connector channel's
 * tests start it: the harness, a password token with `printing.connectors`, the connector
 * (registered with `serial` and `name`), its printer, the demo admin (organization and user) and
 * newJob(), which stores a document in the emulator's data folder and creates a job of it as the
 * admin's. close() stops the emulator; the caller cleans up anything else it started.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmulatorContext } from '../../src/emulator/context.js';
import { defaultTicket, type PrintTicket } from '../../src/protocol/print-ticket.js';
import {
  call,
  createPrinter,
  DEMO,
  type Harness,
  passwordToken,
  registration,
  startHarness,
} from '../integration/emulator-harness.js';
import { pdfFileRecord } from './pdf-file-record.js';

/** What a job of newJob() differs in; by default on the rig's printer, default ticket, kept after print. */
export interface RigJobOptions {
  printerId?: string;
  ticket?: PrintTicket;
  deleteAfterPrint?: boolean;
  /** The document's name (default `doc.pdf`). */
  name?: string;
}

/** The started emulator and the ids the tests use. */
export interface ConnectorRig {
  h: Harness;
  ctx: EmulatorContext;
  /** The demo admin's token with `printing printing.connectors`. */
  token: string;
  connectorId: string;
  printerId: string;
  orgId: string;
  userId: string;
  /** Creates a job of `content` (a PDF of the admin's); returns its id. */
  newJob(content: Buffer, options?: RigJobOptions): string;
  close(): Promise<void>;
}

/** Starts the emulator (with `options`), registers the connector and creates its printer. */
export async function startConnectorRig(
  connector: { serial: string; name: string; printer: string },
  options: Parameters<typeof startHarness>[0] = {},
): Promise<ConnectorRig> {
  const h = await startHarness(options);
  const ctx = h.emulator.app.emulator;
  const token = await passwordToken(h.baseUrl, 'printing printing.connectors');
  const registered = await call(
    h.baseUrl,
    'POST',
    '/connector/v1/register',
    token,
    registration(connector.serial, connector.name),
  );
  const connectorId = registered.body.id as string;
  const printerId = await createPrinter(h.baseUrl, token, connectorId, connector.printer);
  const admin = ctx.store.users.findByEmail(DEMO.admin.email);
  if (!admin) throw new Error(`the seed has no user ${DEMO.admin.email}`);
  let files = 0;
  const newJob = (content: Buffer, job: RigJobOptions = {}): string => {
    const path = join(h.dataDir, `${connector.serial}-${++files}.pdf`);
    writeFileSync(path, content, { mode: 0o600 });
    return ctx.jobs.create({
      organizationId: admin.organizationId,
      userId: admin.id,
      printerId: job.printerId ?? printerId,
      file: pdfFileRecord(path, content, job.name ?? 'doc.pdf'),
      ticket: job.ticket ?? defaultTicket,
      deleteAfterPrint: job.deleteAfterPrint ?? false,
    }).jobId;
  };
  return {
    h,
    ctx,
    token,
    connectorId,
    printerId,
    orgId: admin.organizationId,
    userId: admin.id,
    newJob,
    close: () => h.close(),
  };
}
