/**
 * Typed client of the /TPFM/ pull-printing release protocol (undici). Every command is a GET with
 * `Cmd=`; authenticated ones carry Basic auth with the card number (user id) as user and the
 * printer's pull-printing password. Non-zero X-FMP-Return values become TpfmCommandError, HTTP
 * 401 becomes TpfmAuthError. PrintJob hands back a PrintRun: an async stream of progress events
 * and the final result, read from the trailer or, when a proxy dropped it, from the in-band line.
 * Responses are read through undici's dispatch handler (tpfm-response-stream.ts), the request
 * built from parts made once (origin, path, common headers, the last user's Basic header).
 * The caller owns the client and calls close() when it made its own dispatcher.
 */
import type { Dispatcher } from 'undici';
import { trustedCas, untrustedCertificateError } from './cloud-trust.js';
import { Agent } from './undici-core.js';
import type { Logger } from '../log/logger.js';
import { PrintRelayError } from '../lib/errors.js';
import {
  parseCapabilitiesBody,
  parseJobListBody,
  parseUploadBody,
  parseVersionBody,
  type TpfmCapabilities,
  type TpfmUploadInstruction,
} from '../protocol/tpfm-bodies.js';
import { parseReturnCode, TPFM_HEADERS, type TpfmCommand } from '../protocol/tpfm-codes.js';
import type { TpfmJob } from '../protocol/tpfm-job-list.js';
import {
  type CreateLocalJobParams,
  localJobQuery,
  type UpdateLocalJobParams,
} from '../protocol/tpfm-local-job.js';
import { PrintRun, readErrorFields } from './tpfm-print-run.js';
import { dispatchStreamed, type StreamedResponse as Response } from './tpfm-response-stream.js';

export { PrintRun, type TpfmPrintResult, type TpfmProgressEvent } from './tpfm-print-run.js';

/** A non-zero X-FMP-Return: `code` is the protocol code, `errText` the decoded server text. */
export class TpfmCommandError extends PrintRelayError {
  constructor(
    readonly command: string,
    readonly returnCode: number,
    readonly errText: string,
    readonly osError?: number,
  ) {
    super('tpfm_error', `${command} failed with X-FMP-Return ${returnCode}${errText ? `: ${errText}` : ''}`);
  }
}

/** HTTP 401: the card is not accepted or the pull-printing password is wrong. */
export class TpfmAuthError extends PrintRelayError {
  constructor(readonly command: string) {
    super('tpfm_unauthorized', `${command}: authentication refused (HTTP 401)`);
  }
}

/** Settings of a TpfmClient. */
export interface TpfmClientOptions {
  /** Origin of the pull service, e.g. http://127.0.0.1:8080 (the path /TPFM/ is added). */
  baseUrl: string;
  /** Pull-printing password of the printer object this device releases to. */
  password: string;
  /** X-FMP-User-Agent value. */
  userAgent: string;
  /** X-Lang-ID value (two letters); default en. */
  lang?: string;
  logger: Logger;
  /** Per-request header timeout in ms (PrintJob's body may take longer); default 30 s. */
  timeoutMs?: number;
  /** undici dispatcher; default: one the client makes and closes in close(). */
  dispatcher?: Dispatcher;
  /** PEM of a CA to trust besides the system roots (cloud.ca_file); for the client's own dispatcher. */
  ca?: string;
}

/** Options of GetJobList. */
export interface JobListOptions {
  printer?: string;
  maxEntries?: number;
  showPutOnHoldJobs?: boolean;
}

/** A job list and whether the device may offer selection/deletion (X-FMP-Visible: 1). */
export interface TpfmJobList {
  jobs: TpfmJob[];
  visible: boolean;
}

/** Options of PrintJob. */
export interface PrintJobOptions {
  job: string;
  printer?: string;
  copies?: number;
  delete?: boolean;
  progress?: boolean;
  signal?: AbortSignal;
}

type Query = Record<string, string | number | undefined>;

/** Client of one pull service for one printer's password; see the file comment. */
export class TpfmClient {
  private readonly ownDispatcher: Dispatcher | undefined;
  private readonly dispatcher: Dispatcher;
  /** The service's origin and the /TPFM/ path, resolved once. */
  private readonly origin: string;
  private readonly path: string;
  /** The headers every command carries. */
  private readonly commonHeaders: Record<string, string>;
  /** The last user's Basic header: a station sends many commands for one card in a row. */
  private lastCredential: { user: string; header: string } | undefined;

  constructor(private readonly options: TpfmClientOptions) {
    const ca = trustedCas(options.ca);
    this.ownDispatcher = options.dispatcher ? undefined : new Agent(ca ? { connect: { ca } } : {});
    this.dispatcher = options.dispatcher ?? (this.ownDispatcher as Dispatcher);
    const url = new URL('/TPFM/', options.baseUrl);
    this.origin = url.origin;
    this.path = url.pathname;
    this.commonHeaders = {
      [TPFM_HEADERS.langId]: options.lang ?? 'en',
      [TPFM_HEADERS.userAgent]: options.userAgent,
    };
  }

  /** GetVersion: component versions ([FileVersions]). */
  async getVersion(): Promise<Record<string, string>> {
    return parseVersionBody(await this.text('GetVersion', {}, undefined));
  }

  /** GetCapabilities, as guest without a user or for a user (Printer triggers registration codes). */
  async getCapabilities(user?: string, printer?: string): Promise<TpfmCapabilities> {
    return parseCapabilitiesBody(await this.text('GetCapabilities', { Printer: printer }, user));
  }

  /** GetJobList for a user; `visible` is true only when X-FMP-Visible is exactly 1. */
  async getJobList(user: string, options: JobListOptions = {}): Promise<TpfmJobList> {
    const query = {
      Printer: options.printer,
      MaxEntries: options.maxEntries,
      ShowPutOnHoldJobs:
        options.showPutOnHoldJobs === undefined ? undefined : Number(options.showPutOnHoldJobs),
    };
    const response = await this.send('GetJobList', query, user);
    const text = await response.body.text();
    return { jobs: parseJobListBody(text), visible: header(response, TPFM_HEADERS.visible)?.trim() === '1' };
  }

  /** DeleteJob by job file name. */
  async deleteJob(user: string, job: string): Promise<void> {
    await this.text('DeleteJob', { Job: job }, user);
  }

  /** CancelPrintJob by the ProcId a PrintJob returned. */
  async cancelPrintJob(user: string, procId: number): Promise<void> {
    await this.text('CancelPrintJob', { ProcId: procId }, user);
  }

  /** SetJobProperties: hold/unhold and the modified date. */
  async setJobProperties(user: string, job: string, props: { putOnHold?: boolean; modifiedDate?: number }) {
    const query = {
      Job: job,
      PutOnHold: props.putOnHold === undefined ? undefined : Number(props.putOnHold),
    };
    await this.text('SetJobProperties', { ...query, ModifiedDate: props.modifiedDate }, user);
  }

  /**
   * CreateLocalJob; returns X-FMP-JobId. `idempotencyKey` goes in an Idempotency-Key header: a
   * service that honours it (the emulator does) answers a resend with the job it already made.
   */
  async createLocalJob(user: string, params: CreateLocalJobParams, idempotencyKey?: string): Promise<string> {
    const extra = idempotencyKey ? { 'idempotency-key': idempotencyKey } : undefined;
    const response = await this.send('CreateLocalJob', localJobQuery(params), user, extra);
    await response.body.dump();
    const jobId = header(response, TPFM_HEADERS.jobId);
    if (!jobId) throw new PrintRelayError('tpfm_protocol', 'CreateLocalJob: response has no X-FMP-JobId');
    return jobId;
  }

  /** UpdateLocalJob with only the changed parameters. */
  async updateLocalJob(user: string, params: UpdateLocalJobParams): Promise<void> {
    await this.text('UpdateLocalJob', localJobQuery(params), user);
  }

  /** PrepareUpload; the instruction's URI and headers are credentials: never log them. */
  async prepareUpload(
    user: string,
    doc: { documentName: string; fileExtension: string; pageNumber?: number },
  ) {
    const query = {
      DocumentName: doc.documentName,
      FileExtension: doc.fileExtension,
      PageNumber: doc.pageNumber,
    };
    return parseUploadBody(await this.text('PrepareUpload', query, user)) satisfies TpfmUploadInstruction;
  }

  /**
   * PrintJob: resolves once printing started or failed to start. Iterate the PrintRun for
   * progress, then await `result()`. Aborting `signal` ends the stream (it does not cancel at
   * the server: use cancelPrintJob with the ProcId for that).
   */
  async printJob(user: string, options: PrintJobOptions): Promise<PrintRun> {
    const query = {
      Job: options.job,
      Printer: options.printer,
      Copies: options.copies,
      Delete: options.delete === undefined ? undefined : Number(options.delete),
      Progress: options.progress === undefined ? undefined : Number(options.progress),
    };
    const response = await this.request('PrintJob', query, user, options.signal);
    const procId = parseReturnCode(header(response, TPFM_HEADERS.procId));
    const type = header(response, TPFM_HEADERS.progressType);
    const progressType = type === 'Pages' || type === 'Percentage' ? type : undefined;
    return new PrintRun(
      response.body,
      () => response.trailers,
      readErrorFields(response.headers),
      procId,
      progressType,
    );
  }

  /** Closes the dispatcher the client made itself. */
  async close(): Promise<void> {
    await this.ownDispatcher?.close();
  }

  private async text(command: TpfmCommand, query: Query, user: string | undefined): Promise<string> {
    const response = await this.send(command, query, user);
    return response.body.text();
  }

  /** A request whose non-zero X-FMP-Return is thrown as TpfmCommandError. */
  private async send(
    command: TpfmCommand,
    query: Query,
    user: string | undefined,
    extraHeaders?: Record<string, string>,
  ): Promise<Response> {
    const response = await this.request(command, query, user, undefined, extraHeaders);
    const fields = readErrorFields(response.headers);
    if (fields.code !== undefined && fields.code !== 0) {
      await response.body.dump();
      throw new TpfmCommandError(command, fields.code, fields.errText ?? '', fields.osError);
    }
    return response;
  }

  private async request(
    command: TpfmCommand,
    query: Query,
    user: string | undefined,
    signal?: AbortSignal,
    extraHeaders?: Record<string, string>,
  ) {
    const params = new URLSearchParams();
    params.set('Cmd', command);
    for (const key in query) {
      const value = query[key];
      if (value !== undefined) params.set(key, String(value));
    }
    const headers: Record<string, string> = { ...this.commonHeaders, ...extraHeaders };
    if (user !== undefined) headers.authorization = this.basicHeader(user);
    let response: Response;
    try {
      const path = `${this.path}?${params}`;
      const timeout = this.options.timeoutMs ?? 30_000;
      response = await dispatchStreamed(
        this.dispatcher,
        { origin: this.origin, path, method: 'GET', headers, headersTimeout: timeout, bodyTimeout: 0 },
        signal,
      );
    } catch (error) {
      throw untrustedCertificateError(`${command} ${this.origin}/TPFM/`, error) ?? error;
    }
    this.options.logger.debug({ command, status: response.statusCode }, 'tpfm response');
    if (response.statusCode === 401) {
      await response.body.dump();
      throw new TpfmAuthError(command);
    }
    if (response.statusCode !== 200) {
      const body = (await response.body.text()).slice(0, 200);
      throw new PrintRelayError('tpfm_http', `${command}: HTTP ${response.statusCode} ${body}`);
    }
    return response;
  }

  /** `Basic base64(user:password)`, made once per run of commands for the same user. */
  private basicHeader(user: string): string {
    if (this.lastCredential?.user !== user) {
      const token = Buffer.from(`${user}:${this.options.password}`, 'utf8').toString('base64');
      this.lastCredential = { user, header: `Basic ${token}` };
    }
    return this.lastCredential.header;
  }
}

function header(response: Response, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
