/**
 * Drives print jobs through a test emulator as a connector does: registers a connector with a
 * printer, stores a job with a small document in the data directory, and claims it and posts
 * its events over HTTP up to completed or failed. Nothing to clean up beyond the harness.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobService } from '../../src/emulator/jobs/job-service.js';
import type { PrintTicket } from '../../src/protocol/print-ticket.js';
import type { JobEvent } from '../../src/protocol/connector-channel.js';
import { pdfFileRecord } from '../support/pdf-file-record.js';
import { call, createPrinter, DEMO, type Harness, registration } from './emulator-harness.js';

/** A registered connector and its printer. */
export interface ConnectorPrinter {
  connectorId: string;
  printerId: string;
}

/** Registers a connector (serial, readable name) and an Online printer of it; `token` needs printing.connectors. */
export async function connectorWithPrinter(
  h: Harness,
  token: string,
  serial: string,
  names: { connector?: string; printer: string },
): Promise<ConnectorPrinter> {
  const res = await call(
    h.baseUrl,
    'POST',
    '/connector/v1/register',
    token,
    registration(serial, names.connector),
  );
  if (res.status >= 300) throw new Error(`register ${serial}: ${res.status} ${JSON.stringify(res.body)}`);
  const printerId = await createPrinter(h.baseUrl, token, res.body.id, names.printer);
  return { connectorId: res.body.id, printerId };
}

let documents = 0;

/** Stores a job of the demo admin on `printerId` (through `jobs`, default the emulator's own). */
export async function createJob(
  h: Harness,
  printerId: string,
  options: { jobs?: JobService; name?: string; ticket?: PrintTicket } = {},
): Promise<string> {
  const ctx = h.emulator.app.emulator;
  const content = Buffer.from(`document ${++documents}`);
  const path = join(h.dataDir, `job-driver-${documents}.pdf`);
  await writeFile(path, content);
  const admin = ctx.store.users.findByEmail(DEMO.admin.email)!;
  return (options.jobs ?? ctx.jobs).create({
    organizationId: admin.organizationId,
    userId: admin.id,
    printerId,
    file: pdfFileRecord(path, content, options.name ?? 'document.pdf'),
    ticket: options.ticket ?? { copies: 1 },
    deleteAfterPrint: false,
  }).jobId;
}

/** Claims the job and posts printing, then completed (with `pages`) or failed (3011); throws on a refusal. */
export async function finishJob(
  h: Harness,
  token: string,
  jobId: string,
  outcome: 'completed' | 'failed',
  pages = 1,
): Promise<void> {
  const claim = await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);
  if (claim.status !== 200) throw new Error(`claim ${jobId}: ${claim.status}`);
  const at = new Date(h.clock.now()).toISOString();
  const events: JobEvent[] = [
    { event_id: `p-${jobId}`, seq: 1, kind: 'printing', at },
    outcome === 'completed'
      ? { event_id: `c-${jobId}`, seq: 2, kind: 'completed', at, pages_printed: pages }
      : { event_id: `f-${jobId}`, seq: 2, kind: 'failed', at, error_code: 3011, pages_printed: 0 },
  ];
  for (const e of events) {
    const res = await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/events`, token, e);
    if (res.status >= 300)
      throw new Error(`event ${e.kind} of ${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
