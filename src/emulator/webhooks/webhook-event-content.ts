/**
 * The event content the spec delivers to endpoints: built from the facts of a finished job (a
 * network job, or a local copy job a device recorded), with the required-when rules (connector
 * and printer ids and names for network and local_copy jobs, the user id) and the
 * organization's data protection settings applied (random digits for the file name, no e-mail,
 * no name). Also the sample event of the endpoint test. Pure apart from the injected random
 * source.
 */
import { paperById } from '../../protocol/paper-sizes.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { LocalJobFields } from '../../protocol/tpfm-local-job.js';
import type { WebhookSettings, WebhookTopic } from './webhook-endpoint-repo.js';

/** What the publisher knows of a finished job. */
export interface FinishedJobFacts {
  jobId: string;
  createdAt: number;
  outcome: 'succeeded' | 'failed';
  ticket: PrintTicket;
  fileName: string;
  pagesPrinted: number;
  printer: { id: string; name: string };
  connector: { id: string; name: string };
  user: { id: string; email: string; name: string } | undefined;
  /** Why a failed job failed (the connector's message), when it said. */
  failureReason?: string;
}

/** What the publisher knows of a finished local copy job: the device's last parameters. */
export interface LocalCopyFacts {
  jobId: string;
  createdAt: number;
  outcome: 'succeeded' | 'failed';
  fields: LocalJobFields;
  printer: { id: string; name: string };
  connector: { id: string; name: string };
  user: { id: string; email: string; name: string } | undefined;
}

/** The printjob object of an event. */
export interface PrintJobContent {
  printjob_id: string;
  created: string;
  status: 'succeeded' | 'failed';
  type: 'network' | 'local_copy';
  color?: boolean;
  connector_id?: string;
  connector_name?: string;
  copies?: number;
  duplex?: boolean;
  filename?: string;
  paper?: string;
  printer_id?: string;
  printer_name?: string;
  total_printed_pages?: number;
  total_printed_sheets?: number;
  user_email?: string;
  user_id?: string;
  user_name?: string;
  /** PrintRelay's addition to the spec's fields: why a failed job failed, when known. */
  failure_reason?: string;
}

/** A whole event as delivered. */
export interface WebhookEventBody {
  created: string;
  event_id: string;
  topic: WebhookTopic;
  content: { printjob: PrintJobContent };
}

/** Length of the digits that replace an obfuscated file name. */
export const OBFUSCATED_NAME_DIGITS = 10;

/** The topic of an outcome. */
export function topicOf(outcome: FinishedJobFacts['outcome']): WebhookTopic {
  return outcome === 'succeeded' ? 'printjob_succeeded' : 'printjob_failed';
}

/** Sheets used: duplex prints two pages per sheet, counted per copy. */
export function sheetsOf(pages: number, copies: number, duplex: boolean): number {
  if (!duplex) return pages;
  if (copies > 0 && pages % copies === 0) return copies * Math.ceil(pages / copies / 2);
  return Math.ceil(pages / 2);
}

/** Builds the event of a finished network job, with the settings applied. */
export function buildEvent(
  eventId: string,
  createdAt: number,
  job: FinishedJobFacts,
  settings: WebhookSettings,
  randomDigit: () => number,
): WebhookEventBody {
  const duplex = job.ticket.duplex === undefined ? undefined : job.ticket.duplex !== 'simplex';
  const printjob: PrintJobContent = {
    printjob_id: job.jobId,
    created: new Date(job.createdAt).toISOString(),
    status: job.outcome,
    type: 'network',
    ...(job.ticket.color === undefined ? {} : { color: job.ticket.color }),
    connector_id: job.connector.id,
    connector_name: job.connector.name,
    copies: job.ticket.copies,
    ...(duplex === undefined ? {} : { duplex }),
    filename: settings.file_name_obfuscated ? digits(randomDigit) : job.fileName,
    ...(job.ticket.paper?.name ? { paper: job.ticket.paper.name } : {}),
    printer_id: job.printer.id,
    printer_name: job.printer.name,
    total_printed_pages: job.pagesPrinted,
    total_printed_sheets: sheetsOf(job.pagesPrinted, job.ticket.copies, duplex === true),
    ...userFields(job.user, settings),
    ...(job.outcome === 'failed' && job.failureReason ? { failure_reason: job.failureReason } : {}),
  };
  return eventOf(eventId, createdAt, job.outcome, printjob);
}

/**
 * Builds the event of a finished local copy job, with the settings applied. Only what the
 * device reported is carried (its totals, which include copies; the paper by name, or the name
 * of its desktop paper id); the connector is the printer's own.
 */
export function buildLocalCopyEvent(
  eventId: string,
  createdAt: number,
  job: LocalCopyFacts,
  settings: WebhookSettings,
  randomDigit: () => number,
): WebhookEventBody {
  const f = job.fields;
  const paper = f.PaperName ?? (f.PaperId === undefined ? undefined : paperById(f.PaperId)?.name);
  const printjob: PrintJobContent = {
    printjob_id: job.jobId,
    created: new Date(job.createdAt).toISOString(),
    status: job.outcome,
    type: 'local_copy',
    ...(f.Color === undefined ? {} : { color: f.Color === 1 }),
    connector_id: job.connector.id,
    connector_name: job.connector.name,
    ...(f.Copies === undefined ? {} : { copies: f.Copies }),
    ...(f.Duplex === undefined ? {} : { duplex: f.Duplex === 1 }),
    ...(f.Filename === undefined
      ? {}
      : { filename: settings.file_name_obfuscated ? digits(randomDigit) : f.Filename }),
    ...(paper === undefined ? {} : { paper }),
    printer_id: job.printer.id,
    printer_name: job.printer.name,
    ...(f.TotalPrintedPages === undefined ? {} : { total_printed_pages: f.TotalPrintedPages }),
    ...(f.TotalPrintedSheets === undefined ? {} : { total_printed_sheets: f.TotalPrintedSheets }),
    ...userFields(job.user, settings),
  };
  return eventOf(eventId, createdAt, job.outcome, printjob);
}

function eventOf(
  eventId: string,
  createdAt: number,
  outcome: FinishedJobFacts['outcome'],
  printjob: PrintJobContent,
): WebhookEventBody {
  return {
    created: new Date(createdAt).toISOString(),
    event_id: eventId,
    topic: topicOf(outcome),
    content: { printjob },
  };
}

function userFields(user: FinishedJobFacts['user'], settings: WebhookSettings): Partial<PrintJobContent> {
  if (!user) return {};
  return {
    ...(settings.user_email_disabled || user.email === '' ? {} : { user_email: user.email }),
    user_id: user.id,
    ...(settings.user_name_disabled || user.name === '' ? {} : { user_name: user.name }),
  };
}

function digits(randomDigit: () => number): string {
  return Array.from({ length: OBFUSCATED_NAME_DIGITS }, () => String(randomDigit())).join('');
}

/** The sample event an endpoint test sends for `topic` (made-up job, the caller's settings). */
export function sampleEvent(
  ids: { eventId: string; jobId: string; printerId: string; connectorId: string; userId: string },
  now: number,
  topic: WebhookTopic,
  settings: WebhookSettings,
  randomDigit: () => number,
): WebhookEventBody {
  const facts: FinishedJobFacts = {
    jobId: ids.jobId,
    createdAt: now,
    outcome: topic === 'printjob_succeeded' ? 'succeeded' : 'failed',
    ticket: { copies: 1, color: false, duplex: 'long-edge', paper: { id: 9, name: 'A4' } },
    fileName: 'webhook-test.pdf',
    pagesPrinted: topic === 'printjob_succeeded' ? 2 : 0,
    printer: { id: ids.printerId, name: 'Webhook test printer' },
    connector: { id: ids.connectorId, name: 'Webhook test connector' },
    user: { id: ids.userId, email: 'webhook-test@example.com', name: 'Webhook Test' },
  };
  return buildEvent(ids.eventId, now, facts, settings, randomDigit);
}
