/**
 * A streaming IPP client for one printer URI: Get-Printer-Attributes, Print-Job, Create-Job,
 * Send-Document, Validate-Job, Get-Job-Attributes, Get-Jobs and Cancel-Job. Documents stream from
 * their file, or go from memory when the caller holds their bytes; every request has a timeout on top of the caller's signal; every failure is typed
 * (ipp-errors.ts). Connections to the printer are kept open between requests; close() ends them.
 */
import type { Logger } from '../../log/logger.js';
import type { PrinterAttributes } from '../printer-backend.js';
import { encodeAttributes, encodeRequest, type IppAttribute, type IppMessage } from './ipp-codec.js';
import { attr, groupRecord, groupRecords, operationPreamble } from './ipp-attributes.js';
import { OPERATION, TAG } from './ipp-constants.js';
import { errorForStatus } from './ipp-errors.js';
import { IppConnectionPool } from './ipp-connection-pool.js';
import { exchange, type IppTarget, parseIppTarget } from './ipp-transport.js';

/** Options of an IppClient. */
export interface IppClientOptions {
  /** ipp:// or ipps:// printer URI, with optional tls-verify / tls-fingerprint query parameters. */
  uri: string;
  logger: Logger;
  /** Per-request timeout for attribute requests (default 15 s). */
  timeoutMs?: number;
  /** Per-request timeout for requests carrying a document (default 10 min). */
  documentTimeoutMs?: number;
  /** requesting-user-name when none is given (default printrelay). */
  userName?: string;
}

/** A document and its job attributes for Print-Job / Validate-Job. */
export interface IppJobRequest {
  documentPath: string;
  /** The document's bytes when the caller holds them (the same as the file): sent instead of reading the file. */
  documentBytes?: Buffer;
  documentFormat: string;
  jobName: string;
  /** IPP document-name (the original file name). */
  documentName?: string;
  userName?: string;
  /** Job template attributes (see translate/ticket-to-ipp.ts). */
  jobAttributes: IppAttribute[];
  /** Called once every byte of the document is with the operating system (see BackendJob). */
  onDocumentFlushed?: () => void;
  /**
   * Called once the printer answered the request carrying the document with success, every byte
   * of it having gone to the operating system first: the printer has it (see BackendJob).
   */
  onDocumentSent?: () => void;
}

/** What the printer said about a new job. */
export interface IppJobCreated {
  jobId: number;
  jobUri?: string;
  jobState?: number;
  /** The status keyword: successful-ok or successful-ok-ignored-or-substituted-attributes. */
  statusCode: number;
  /** Attributes the printer ignored or substituted (unsupported group). */
  unsupported: PrinterAttributes;
}

/** Which jobs Get-Jobs lists. */
export type WhichJobs = 'not-completed' | 'completed' | 'all';

/** What Get-Jobs asks for by default: enough for findJobByName and a look at the queue. */
const JOB_LIST_ATTRIBUTES = [
  'job-id',
  'job-name',
  'job-state',
  'job-state-reasons',
  'job-impressions-completed',
  'job-k-octets',
  'number-of-documents',
];

/** Operations that may be sent twice: a stale kept-open connection is retried for them (ipp-transport.ts). */
const REPEATABLE = new Set([
  OPERATION.GET_PRINTER_ATTRIBUTES,
  OPERATION.GET_JOB_ATTRIBUTES,
  OPERATION.GET_JOBS,
  OPERATION.VALIDATE_JOB,
  OPERATION.CANCEL_JOB,
]);

/**
 * How long an idle kept-open connection is kept (ms). Well under the idle timeouts printers use
 * (ippeveprinter announces 10 s and the agent then keeps 9 s, whichever is shorter), so the
 * printer rarely closes a connection just as a request goes out on it.
 */
export const IDLE_CONNECTION_MS = 4_000;

/**
 * An IPP client bound to one printer URI. Connections to the printer are kept open between
 * requests (a connection pool of its own, at most two connections, idle ones closed after
 * IDLE_CONNECTION_MS), which spares a TCP (and TLS) handshake per request; close() ends them.
 */
export class IppClient {
  private readonly target: IppTarget;
  private readonly pool: IppConnectionPool;
  /** The operation attributes every request starts with (charset, language, printer-uri), encoded once. */
  private readonly operationStart: Buffer;
  private requestId = 0;

  constructor(private readonly options: IppClientOptions) {
    this.target = parseIppTarget(options.uri);
    this.operationStart = encodeAttributes(operationPreamble(this.target.printerUri));
    this.pool = new IppConnectionPool(this.target, { maxConnections: 2, idleMs: IDLE_CONNECTION_MS });
  }

  /** Closes the kept-open connections; the client may still be used (it opens new ones). */
  close(): void {
    this.pool.close();
  }

  /** The printer-uri this client sends (query parameters removed). */
  get printerUri(): string {
    return this.target.printerUri;
  }

  /** Get-Printer-Attributes; `requested` defaults to all plus media-col-database. */
  async getPrinterAttributes(requested?: string[], signal?: AbortSignal): Promise<PrinterAttributes> {
    const names = requested ?? ['all', 'media-col-database'];
    const response = await this.call(
      'Get-Printer-Attributes',
      OPERATION.GET_PRINTER_ATTRIBUTES,
      [attr(TAG.KEYWORD, 'requested-attributes', names)],
      { signal },
    );
    return groupRecord(response, TAG.PRINTER);
  }

  /** Print-Job: streams the document; resolves when the printer accepted the job. */
  async printJob(job: IppJobRequest, signal?: AbortSignal): Promise<IppJobCreated> {
    const response = await this.call('Print-Job', OPERATION.PRINT_JOB, this.jobOperation(job), {
      signal,
      job: job.jobAttributes,
      documentPath: job.documentPath,
      documentBytes: job.documentBytes,
      onDocumentFlushed: job.onDocumentFlushed,
      onDocumentSent: job.onDocumentSent,
    });
    return createdJob(response, 'Print-Job');
  }

  /**
   * Create-Job: a job without a document yet (the document follows with sendDocument). A job
   * whose Send-Document never finishes is not printed: see docs/ipp.md, "Two-step submission".
   */
  async createJob(job: Omit<IppJobRequest, 'documentPath'>, signal?: AbortSignal): Promise<IppJobCreated> {
    const response = await this.call('Create-Job', OPERATION.CREATE_JOB, this.createOperation(job), {
      signal,
      job: job.jobAttributes,
    });
    return createdJob(response, 'Create-Job');
  }

  /** Send-Document with last-document=true: streams the job's one document; resolves when the printer took it. */
  async sendDocument(jobId: number, job: IppJobRequest, signal?: AbortSignal): Promise<IppJobCreated> {
    const response = await this.call(
      'Send-Document',
      OPERATION.SEND_DOCUMENT,
      [
        attr(TAG.INTEGER, 'job-id', jobId),
        attr(TAG.NAME, 'requesting-user-name', job.userName ?? this.options.userName ?? 'printrelay'),
        attr(TAG.MIME_TYPE, 'document-format', job.documentFormat),
        ...(job.documentName ? [attr(TAG.NAME, 'document-name', job.documentName.slice(0, 255))] : []),
        attr(TAG.BOOLEAN, 'last-document', true),
      ],
      {
        signal,
        documentPath: job.documentPath,
        documentBytes: job.documentBytes,
        onDocumentFlushed: job.onDocumentFlushed,
        onDocumentSent: job.onDocumentSent,
      },
    );
    return createdJob(response, 'Send-Document', jobId);
  }

  /** Validate-Job: checks the job attributes without sending a document. */
  async validateJob(
    job: Omit<IppJobRequest, 'documentPath'>,
    signal?: AbortSignal,
  ): Promise<PrinterAttributes> {
    const response = await this.call('Validate-Job', OPERATION.VALIDATE_JOB, this.jobOperation(job), {
      signal,
      job: job.jobAttributes,
    });
    return groupRecord(response, TAG.UNSUPPORTED_GROUP);
  }

  /** Get-Job-Attributes of one job; `requested` limits the answer to those attributes (default: the printer's choice). */
  async getJobAttributes(
    jobId: number,
    signal?: AbortSignal,
    requested?: string[],
  ): Promise<PrinterAttributes> {
    const response = await this.call(
      'Get-Job-Attributes',
      OPERATION.GET_JOB_ATTRIBUTES,
      [
        attr(TAG.INTEGER, 'job-id', jobId),
        attr(TAG.NAME, 'requesting-user-name', this.options.userName ?? 'printrelay'),
        ...(requested ? [attr(TAG.KEYWORD, 'requested-attributes', requested)] : []),
      ],
      { signal },
    );
    return groupRecord(response, TAG.JOB);
  }

  /**
   * Get-Jobs: one record per job, with job-id, job-name, job-state and the attributes findJobByName
   * reads, or with `requested` only (job-id always added).
   */
  async getJobs(
    which: WhichJobs = 'all',
    signal?: AbortSignal,
    requested?: string[],
  ): Promise<PrinterAttributes[]> {
    const response = await this.call(
      'Get-Jobs',
      OPERATION.GET_JOBS,
      [
        attr(TAG.NAME, 'requesting-user-name', this.options.userName ?? 'printrelay'),
        attr(TAG.KEYWORD, 'which-jobs', which),
        attr(TAG.KEYWORD, 'requested-attributes', requested ? ['job-id', ...requested] : JOB_LIST_ATTRIBUTES),
      ],
      { signal },
    );
    return groupRecords(response, TAG.JOB);
  }

  /** The newest job with this job-name, for finding a job again after a crash; undefined when none. */
  async findJobByName(jobName: string, signal?: AbortSignal): Promise<PrinterAttributes | undefined> {
    const jobs = await this.getJobs('all', signal);
    const matches = jobs.filter((j) => j['job-name'] === jobName && typeof j['job-id'] === 'number');
    matches.sort((a, b) => (b['job-id'] as number) - (a['job-id'] as number));
    return matches[0];
  }

  /** Cancel-Job. */
  async cancelJob(jobId: number, signal?: AbortSignal): Promise<void> {
    await this.call(
      'Cancel-Job',
      OPERATION.CANCEL_JOB,
      [
        attr(TAG.INTEGER, 'job-id', jobId),
        attr(TAG.NAME, 'requesting-user-name', this.options.userName ?? 'printrelay'),
      ],
      { signal },
    );
  }

  /** Create-Job's operation group: like Print-Job's, without document-format and document-name. */
  private createOperation(job: Omit<IppJobRequest, 'documentPath'>): IppAttribute[] {
    return [
      attr(TAG.NAME, 'requesting-user-name', job.userName ?? this.options.userName ?? 'printrelay'),
      attr(TAG.NAME, 'job-name', job.jobName),
    ];
  }

  private jobOperation(job: Omit<IppJobRequest, 'documentPath'>): IppAttribute[] {
    return [
      attr(TAG.NAME, 'requesting-user-name', job.userName ?? this.options.userName ?? 'printrelay'),
      attr(TAG.NAME, 'job-name', job.jobName),
      attr(TAG.MIME_TYPE, 'document-format', job.documentFormat),
      ...(job.documentName ? [attr(TAG.NAME, 'document-name', job.documentName.slice(0, 255))] : []),
    ];
  }

  private async call(
    name: string,
    operationId: number,
    operation: IppAttribute[],
    extra: {
      signal?: AbortSignal;
      job?: IppAttribute[];
      documentPath?: string;
      documentBytes?: Buffer;
      onDocumentFlushed?: () => void;
      onDocumentSent?: () => void;
    },
  ): Promise<IppMessage> {
    this.requestId = (this.requestId % 0x7fffffff) + 1;
    const header = encodeRequest({
      version: { major: 2, minor: 0 },
      code: operationId,
      requestId: this.requestId,
      operationStart: this.operationStart,
      operation,
      job: extra.job,
    });
    // A request carrying a document, from its file or from memory, has the document timeout.
    const timeout =
      extra.documentPath || extra.documentBytes
        ? (this.options.documentTimeoutMs ?? 600_000)
        : (this.options.timeoutMs ?? 15_000);
    this.options.logger.debug({ operation: name, requestId: this.requestId }, 'ipp request');
    let flushed = false;
    const response = await exchange(this.target, header, {
      operation: name,
      documentPath: extra.documentPath,
      documentBytes: extra.documentBytes,
      onDocumentFlushed: () => {
        flushed = true;
        extra.onDocumentFlushed?.();
      },
      signal: extra.signal,
      timeoutMs: timeout,
      pool: this.pool,
      repeatable: REPEATABLE.has(operationId),
    });
    const message = groupRecord(response, TAG.OPERATION)['status-message'];
    const error = errorForStatus(response.code, name, typeof message === 'string' ? message : undefined);
    if (error) throw error;
    // "Sent": every byte with the operating system and the printer's successful answer received.
    if (flushed) extra.onDocumentSent?.();
    return response;
  }
}

/** The job a Print-Job / Create-Job / Send-Document answer describes. */
function createdJob(response: IppMessage, operation: string, knownId?: number): IppJobCreated {
  const jobAttrs = groupRecord(response, TAG.JOB);
  const jobId = typeof jobAttrs['job-id'] === 'number' ? jobAttrs['job-id'] : knownId;
  if (typeof jobId !== 'number') throw errorForStatus(0x0500, operation, 'no job-id in the response')!;
  return {
    jobId,
    jobUri: typeof jobAttrs['job-uri'] === 'string' ? jobAttrs['job-uri'] : undefined,
    jobState: typeof jobAttrs['job-state'] === 'number' ? jobAttrs['job-state'] : undefined,
    statusCode: response.code,
    unsupported: groupRecord(response, TAG.UNSUPPORTED_GROUP),
  };
}
