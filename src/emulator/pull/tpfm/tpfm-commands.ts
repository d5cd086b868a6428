/**
 * The /TPFM/ commands other than PrintJob's stream, one function each: they read the canonical
 * query of an authenticated call and return the body and extra headers, or throw TpfmFailure
 * with the spec's code. Decisions where the spec is silent are in docs/tpfm.md.
 */
import { isValidationError, ValidationErrors } from '../../../lib/errors.js';
import {
  formatCapabilitiesBody,
  formatJobListBody,
  formatUploadBody,
  formatVersionBody,
} from '../../../protocol/tpfm-bodies.js';
import { TPFM_COMMANDS, TPFM_HEADERS, type TpfmCommand } from '../../../protocol/tpfm-codes.js';
import { parseCreateLocalJob, parseUpdateLocalJob } from '../../../protocol/tpfm-local-job.js';
import { contentTypeForExtension } from '../../../protocol/sfapi-configuration.js';
import type { TpfmServices } from '../pull-services.js';
import type { TpfmDevice } from './tpfm-auth.js';
import type { PrinterRecord } from '../../printers/printers-face.js';
import type { User } from '../../accounts/accounts-face.js';
import { STORAGE_UPLOAD_PREFIX } from '../../files/storage-routes.js';
import { flagParam, intParam, TpfmFailure } from './tpfm-wire.js';

/** One authenticated (or guest) command call. */
export interface TpfmCall {
  command: TpfmCommand;
  query: Record<string, string | undefined>;
  langId: string;
  /** Origin for absolute URLs (upload URI, claim page). */
  baseUrl: string;
  device?: TpfmDevice;
  /** The card number or user id given as Basic user (secret: never log it). */
  userName?: string;
  user?: User;
  /** Idempotency-Key request header (our extension for CreateLocalJob resends). */
  idempotencyKey?: string;
}

/** Body and extra headers of a successful command. */
export interface TpfmResult {
  body: string;
  headers?: Record<string, string>;
}

/** Versions reported by GetVersion. */
export const TPFM_SERVER_VERSION = '1.0.0';
const GUEST_COMMANDS: TpfmCommand[] = ['GetVersion', 'GetCapabilities'];

function requireUser(call: TpfmCall): User & { device: TpfmDevice } {
  if (!call.user || !call.device) throw new Error('command needs an authenticated user');
  return { ...call.user, device: call.device };
}

/** The printer named by a Printer parameter in the device's organization; code 4 when unknown. */
export function namedPrinter(s: TpfmServices, call: TpfmCall): PrinterRecord | undefined {
  const name = call.query['Printer']?.trim();
  if (!name) return undefined;
  const printer = s.auth.printer(call.device!, name);
  if (!printer) throw new TpfmFailure(4, `Printer "${name}" is not a printer of this organization`);
  return printer;
}

/** GetVersion: [FileVersions] of the emulator's components. */
export function getVersion(s: TpfmServices): TpfmResult {
  const row = s.store.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number };
  return {
    body: formatVersionBody({
      'printrelay-emulator': TPFM_SERVER_VERSION,
      'tpfm-protocol': TPFM_SERVER_VERSION,
      'emulator-schema': String(row.v),
    }),
  };
}

/** GetCapabilities: guest list without a known user; an unknown card with Printer prints a code. */
export async function getCapabilities(s: TpfmServices, call: TpfmCall): Promise<TpfmResult> {
  const known = call.user !== undefined;
  if (!known && call.device && call.userName) await printRegistration(s, call);
  const commands = known ? (Object.keys(TPFM_COMMANDS) as TpfmCommand[]) : GUEST_COMMANDS;
  return { body: formatCapabilitiesBody({ commands, systemType: 'Cloud' }) };
}

async function printRegistration(s: TpfmServices, call: TpfmCall): Promise<void> {
  const name = call.query['Printer']?.trim();
  if (!name) return;
  const printer = s.auth.printer(call.device!, name);
  if (!printer || s.queue.ensureQueue(printer.organizationId).printerId === printer.id) return;
  await s.registration.issue(
    printer.organizationId,
    call.userName!,
    printer,
    `${call.baseUrl}/portal/cards/claim`,
  );
}

/** GetJobList: the user's held jobs; X-FMP-Visible 1 when the list was filtered for a printer. */
export function getJobList(s: TpfmServices, call: TpfmCall): TpfmResult {
  const user = requireUser(call);
  const printer = namedPrinter(s, call) ?? user.device.printer;
  const maxEntries = intParam(call.query['MaxEntries'], 'MaxEntries', { min: 0, max: 100_000, code: 11 });
  const showOnHold = flagParam(call.query['ShowPutOnHoldJobs'], 'ShowPutOnHoldJobs', 11, false);
  const jobs = s.queue.list(user.id, {
    ...(printer ? { printer } : {}),
    ...(maxEntries === undefined ? {} : { maxEntries }),
    showOnHold,
  });
  return { body: formatJobListBody(jobs), headers: { [TPFM_HEADERS.visible]: printer ? '1' : '0' } };
}

/** The user's held job named by Job; code 5 when missing. */
export function heldJob(s: TpfmServices, call: TpfmCall) {
  const handle = call.query['Job']?.trim();
  if (!handle) throw new TpfmFailure(5, 'Job is required (the job file name)');
  const job = s.queue.find(requireUser(call).id, handle);
  if (!job) throw new TpfmFailure(5, `Job "${handle}" is not in your queue`);
  return job;
}

/** DeleteJob: removes the held job and its document. */
export async function deleteJob(s: TpfmServices, call: TpfmCall): Promise<TpfmResult> {
  await s.queue.remove(heldJob(s, call));
  return { body: '' };
}

/** SetJobProperties: PutOnHold (0/1) and ModifiedDate (epoch seconds). */
export function setJobProperties(s: TpfmServices, call: TpfmCall): TpfmResult {
  const job = heldJob(s, call);
  const hold = call.query['PutOnHold'];
  const onHold = hold === undefined ? undefined : intParam(hold, 'PutOnHold', { min: 0, max: 1, code: 11 });
  const modifiedSeconds = intParam(call.query['ModifiedDate'], 'ModifiedDate', {
    min: 0,
    max: 253_402_300_799,
    code: 11,
  });
  s.queue.setProperties(job, {
    ...(onHold === undefined ? {} : { onHold: onHold === 1 }),
    ...(modifiedSeconds === undefined ? {} : { modifiedSeconds }),
  });
  return { body: '' };
}

/** CancelPrintJob: cancels the user's running release; code 9 for an unknown or ended ProcId. */
export function cancelPrintJob(s: TpfmServices, call: TpfmCall): TpfmResult {
  const user = requireUser(call);
  const procId = intParam(call.query['ProcId'], 'ProcId', { min: 1, max: Number.MAX_SAFE_INTEGER, code: 9 });
  if (procId === undefined) throw new TpfmFailure(9, 'ProcId is required');
  const proc = s.prints.find(user.id, procId);
  if (!proc) throw new TpfmFailure(9, `ProcId ${procId} is not a running print of yours`);
  s.jobs.cancel(user.organizationId, proc.jobId);
  return { body: '' };
}

function localJobParams<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!isValidationError(error)) throw error;
    // Stryker disable next-line ArrayDeclaration: the parsers throw ValidationErrors only, never a single ValidationError
    const list = error instanceof ValidationErrors ? error.errors : [error];
    throw new TpfmFailure(12, list.map((e) => e.message).join('; '));
  }
}

/** CreateLocalJob: validates the parameter table; X-FMP-JobId carries the new id. */
export function createLocalJob(s: TpfmServices, call: TpfmCall): TpfmResult {
  const user = requireUser(call);
  const params = localJobParams(() => parseCreateLocalJob(call.query));
  const printer = namedPrinter(s, call)!;
  if (s.queue.ensureQueue(printer.organizationId).printerId === printer.id) {
    throw new TpfmFailure(4, 'Printer must be a physical printer, not the pull-printing queue');
  }
  const id = s.localJobs.create(user, printer.id, params, call.idempotencyKey);
  return { body: '', headers: { [TPFM_HEADERS.jobId]: id } };
}

/** UpdateLocalJob: applies changed parameters of a Pending job; code 13 when unknown, final or closed. */
export function updateLocalJob(s: TpfmServices, call: TpfmCall): TpfmResult {
  const user = requireUser(call);
  const params = localJobParams(() => parseUpdateLocalJob(call.query));
  const outcome = s.localJobs.update(user.id, params);
  if (outcome === 'unknown') throw new TpfmFailure(13, `JobId ${params.JobId} is not a local job of yours`);
  if (outcome === 'final') throw new TpfmFailure(13, `JobId ${params.JobId} already ended`);
  if (outcome === 'closed')
    throw new TpfmFailure(13, `JobId ${params.JobId} was closed after 24 hours without update`);
  return { body: '' };
}

function uploadParams(query: Record<string, string | undefined>) {
  const name = query['DocumentName'];
  if (name === undefined || name.trim() === '') throw new TpfmFailure(11, 'DocumentName is required');
  if (name.length > 255) throw new TpfmFailure(11, 'DocumentName must be at most 255 characters');
  // Stryker disable next-line StringLiteral: any other text for a missing extension breaks the same rule below
  const extension = query['FileExtension']?.trim() ?? '';
  if (!/^[A-Za-z0-9]{1,16}$/.test(extension)) {
    throw new TpfmFailure(11, 'FileExtension is required: 1 to 16 letters or digits, without the dot');
  }
  intParam(query['PageNumber'], 'PageNumber', { min: 1, max: 100_000, code: 11 });
  return { extension: extension.toLowerCase() };
}

/** PrepareUpload: a signed upload URL of the storage endpoint and the headers to send with it. */
export async function prepareUpload(s: TpfmServices, call: TpfmCall): Promise<TpfmResult> {
  const user = requireUser(call);
  const { extension } = uploadParams(call.query);
  const file = await s.files.prepareUpload(user.organizationId, user.id);
  const uri = `${call.baseUrl}${STORAGE_UPLOAD_PREFIX}${file.fileId}?${s.files.signUpload(file.fileId)}`;
  const httpHeaders = { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': contentTypeForExtension(extension) };
  return { body: formatUploadBody({ uri, httpHeaders }) };
}
