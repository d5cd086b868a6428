/**
 * What an app does to print a file (spec section A), through the project's clients: a
 * password-grant session (passwordSession), GetPrinter to find the printer by name,
 * PrepareUpload, the multipart upload to the signed URL (SfapiClient streams it from disk and
 * reports bytes), Print, then Status polled until the job ends. The HTTP pools are closed
 * before printFile returns.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { HttpClient } from '../client/http-base.js';
import { passwordSession } from '../client/oauth-client.js';
import { SfapiClient, type SfapiPrintRequest } from '../client/sfapi-client.js';
import { sleep } from '../lib/abort.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { errorMessage } from '../lib/errors.js';
import { JOB_STATUS, type SfapiJobStatus } from '../protocol/sfapi-configuration.js';
import { CliError } from './cli-runtime.js';
import type { PrintOptionFields } from './print-options.js';

/** Who prints where. */
export interface PrintTarget {
  url: string;
  clientId: string;
  clientSecret: string;
  user: string;
  password: string;
  printer: string;
  /** PEM of a CA to trust besides the system roots (--ca). */
  ca?: string;
}

/** What the flow reports while it runs (a progress bar or plain lines). */
export interface PrintReporter {
  stage(message: string): void;
  uploaded(bytes: number, total: number): void;
  status(status: SfapiJobStatus): void;
}

/** Timing of the Status poll. */
export interface PollSettings {
  intervalMs: number;
  timeoutMs: number;
  /** Time source of the timeout; default the wall clock. */
  clock?: Clock;
}

/** Runs the whole flow; resolves with the job id and final status, or throws a CliError. */
export async function printFile(
  file: string,
  fields: PrintOptionFields,
  target: PrintTarget,
  reporter: PrintReporter,
  poll: PollSettings,
  signal?: AbortSignal,
): Promise<{ jobId: string; status: SfapiJobStatus; notes: string[] }> {
  const base = target.url.replace(/\/+$/, '');
  checkFile(file);
  reporter.stage(`signing in as ${target.user}`);
  const http = await signIn(base, target);
  const sfapi = new SfapiClient(http);
  try {
    const printers = await step('GetPrinter', () => sfapi.getPrinters(signal));
    const printer = printers.find((p) => p.name.toLowerCase() === target.printer.toLowerCase());
    if (!printer) {
      const names = printers.map((p) => `"${p.name}"`).join(', ') || 'none';
      throw new CliError(`--printer: no printer named "${target.printer}" (available: ${names})`);
    }
    const { fileid, sasUri } = await step('PrepareUpload', () => sfapi.prepareUpload(signal));
    reporter.stage(`uploading ${basename(file)}`);
    await step('upload', () =>
      sfapi.upload(sasUri, file, (sent, total) => reporter.uploaded(sent, total), signal),
    );
    const request: SfapiPrintRequest = { ...fields, fileid, printerid: printer.id };
    const { jobid } = await step('Print', () => sfapi.print(request, signal));
    reporter.stage(`job ${jobid} submitted to "${printer.name}"`);
    const status = await waitForJob(
      (id) => step('Status', () => sfapi.status(id, signal)),
      jobid,
      reporter,
      poll,
      signal,
    );
    return { jobId: jobid, status, notes: statusNotes(status.jobstatusstring) };
  } finally {
    await http.close();
  }
}

/**
 * The elements of a status string that are not upper-case flags: what the connector noted about
 * the job (`not applied: tray ...`). Pure.
 */
export function statusNotes(statusString: string): string[] {
  return statusString
    .split('|')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !/^[A-Z_]+$/.test(part));
}

function checkFile(file: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    throw new CliError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!isFile) throw new CliError(`${file}: not a file`);
}

async function signIn(base: string, target: PrintTarget): Promise<HttpClient> {
  const client = {
    authUrl: base,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    ...(target.ca ? { ca: target.ca } : {}),
  };
  try {
    return (await passwordSession(client, target.user, target.password, 'printing')).http;
  } catch (error) {
    throw new CliError(
      `sign-in at ${base} as ${target.user} (client ${target.clientId}) failed: ${errorMessage(error)}`,
    );
  }
}

/** Runs one API step; its failure becomes a CliError naming the step. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${name} failed: ${errorMessage(error)}`);
  }
}

async function waitForJob(
  status: (jobId: string) => Promise<SfapiJobStatus>,
  jobId: string,
  reporter: PrintReporter,
  poll: PollSettings,
  signal?: AbortSignal,
): Promise<SfapiJobStatus> {
  const clock = poll.clock ?? systemClock;
  const deadline = clock.now() + poll.timeoutMs;
  for (;;) {
    const current = await status(jobId);
    reporter.status(current);
    if (current.jobstatus === JOB_STATUS.finished) return current;
    if (current.jobstatus !== JOB_STATUS.processing && current.jobstatus !== JOB_STATUS.noStatusYet) {
      throw new CliError(
        `job ${jobId} failed: status ${current.jobstatus} ${current.jobstatusstring}`.trim(),
      );
    }
    if (clock.now() > deadline) {
      throw new CliError(
        `job ${jobId} did not finish within ${poll.timeoutMs / 1000} s (last status ${current.jobstatus})`,
      );
    }
    await sleep(poll.intervalMs, signal);
  }
}
