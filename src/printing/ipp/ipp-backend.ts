/**
 * PrinterBackend for ipp:// and ipps:// printers over the streaming IppClient. describe() reads
 * the printer attributes (kept raw for capability translation and for ticket translation in
 * submit()); submit() sends the job with the ticket's job template attributes, logging the
 * options the printer cannot honour: Create-Job then Send-Document where the printer lists
 * Create-Job in operations-supported (the job id is known before any byte of the document goes
 * out), Print-Job otherwise. jobState() polls through JobStates (the polls of several jobs that
 * come at once in one Get-Jobs). Holds no connections: close() ends the client's kept-open ones.
 */
import type { Logger } from '../../log/logger.js';
import type {
  BackendJob,
  BackendJobState,
  BackendJobStateName,
  PrinterAttributes,
  PrinterBackend,
  PrinterDescription,
  PrinterState,
  SubmittedJob,
} from '../printer-backend.js';
import { ValidationError } from '../../lib/errors.js';
import { notAppliedLines, ticketToIpp } from '../translate/ticket-to-ipp.js';
import { firstNumber, firstText, textList } from './ipp-attributes.js';
import { IppClient, type IppClientOptions, type IppJobRequest } from './ipp-client.js';
import { IppBusyError, IppRejectedError } from './ipp-errors.js';
import { JobStates } from './ipp-job-states.js';
import { OPERATION, STATUS } from './ipp-constants.js';
import { RetryableError } from '../../lib/errors.js';

const PRINTER_STATES: Record<number, PrinterState> = { 3: 'idle', 4: 'processing', 5: 'stopped' };
const JOB_STATES: Record<number, BackendJobStateName> = {
  3: 'pending',
  4: 'held',
  5: 'processing',
  6: 'stopped',
  7: 'cancelled',
  8: 'aborted',
  9: 'completed',
};

/** Maps Get-Printer-Attributes to a PrinterDescription. Pure. */
export function describePrinter(uri: string, attrs: PrinterAttributes): PrinterDescription {
  return {
    uri,
    name: firstText(attrs, 'printer-name') ?? uri,
    makeAndModel: firstText(attrs, 'printer-make-and-model') ?? 'Unknown IPP printer',
    state: PRINTER_STATES[firstNumber(attrs, 'printer-state') ?? 3] ?? 'stopped',
    stateReasons: textList(attrs, 'printer-state-reasons'),
    uuid: firstText(attrs, 'printer-uuid'),
    deviceId: firstText(attrs, 'printer-device-id'),
    location: firstText(attrs, 'printer-location') || undefined,
    documentFormats: textList(attrs, 'document-format-supported'),
    attributes: attrs,
  };
}

/** The job attributes jobStateOf reads: a status poll asks for these only (a smaller answer). */
export const JOB_STATE_ATTRIBUTES = [
  'job-state',
  'job-state-reasons',
  'job-impressions-completed',
  'job-media-sheets-completed',
  'job-impressions',
  'job-k-octets',
  'job-k-octets-processed',
];

/** Maps Get-Job-Attributes to a BackendJobState. Pure. */
export function jobStateOf(attrs: PrinterAttributes): BackendJobState {
  const sheets = firstNumber(attrs, 'job-media-sheets-completed');
  const impressions = firstNumber(attrs, 'job-impressions-completed');
  return {
    state: JOB_STATES[firstNumber(attrs, 'job-state') ?? 3] ?? 'pending',
    reasons: textList(attrs, 'job-state-reasons'),
    pagesCompleted: impressions ?? sheets,
    pagesTotal: firstNumber(attrs, 'job-impressions') ?? undefined,
    ...kOctetsOf(attrs),
  };
}

/**
 * How much of the document the printer reports having processed, once the job ended
 * (job-k-octets-processed, else job-k-octets); nothing before that (a size announced for a job
 * still receiving proves nothing) or when it reports neither (ippeveprinter).
 */
function kOctetsOf(attrs: PrinterAttributes): { kOctets?: number } {
  const state = JOB_STATES[firstNumber(attrs, 'job-state') ?? 3];
  if (state !== 'completed' && state !== 'aborted' && state !== 'cancelled') return {};
  const kOctets = firstNumber(attrs, 'job-k-octets-processed') ?? firstNumber(attrs, 'job-k-octets');
  return kOctets === undefined ? {} : { kOctets };
}

/** True when the printer lists the operation in operations-supported. Pure. */
export function supportsOperation(attrs: PrinterAttributes, operation: number): boolean {
  const listed = attrs['operations-supported'];
  return Array.isArray(listed) ? listed.includes(operation) : listed === operation;
}

/** True for an error that is the printer's own IPP answer (it refused; nothing was printed). */
function printerAnswered(error: unknown): boolean {
  return (
    error instanceof IppRejectedError ||
    error instanceof IppBusyError ||
    (error instanceof RetryableError && error.code === 'printer_error')
  );
}

/** Get-Jobs by job-name through an IPP client, as a SubmittedJob. */
export async function findIppJobByName(
  client: IppClient,
  jobName: string,
  signal?: AbortSignal,
): Promise<SubmittedJob | undefined> {
  const id = (await client.findJobByName(jobName, signal))?.['job-id'];
  return typeof id === 'number' ? { printerJobId: String(id) } : undefined;
}

/** The backend for one IPP printer URI. Construct per printer; close() when done. */
export class IppBackend implements PrinterBackend {
  private readonly client: IppClient;
  private readonly logger: Logger;
  /** Status polls of this printer's jobs, several at once in one Get-Jobs (ipp-job-states.ts). */
  private readonly states: JobStates;
  private attributes: PrinterAttributes | undefined;
  readonly reportsDocumentSent = true;
  readonly sendsDocumentBytes = true;

  constructor(
    readonly uri: string,
    options: { logger: Logger } & Partial<Omit<IppClientOptions, 'uri' | 'logger'>>,
  ) {
    this.logger = options.logger.child({ printer: uri.replace(/\?.*$/, '') });
    this.client = new IppClient({ ...options, uri, logger: this.logger });
    this.states = new JobStates(this.client, JOB_STATE_ATTRIBUTES, () =>
      this.attributes ? supportsOperation(this.attributes, OPERATION.GET_JOBS) : false,
    );
  }

  /** The underlying client, for Validate-Job and Get-Jobs (crash recovery by job-name). */
  get ipp(): IppClient {
    return this.client;
  }

  async describe(signal?: AbortSignal): Promise<PrinterDescription> {
    this.attributes = await this.client.getPrinterAttributes(undefined, signal);
    return describePrinter(this.uri, this.attributes);
  }

  async submit(job: BackendJob, signal?: AbortSignal): Promise<SubmittedJob> {
    const printer = this.attributes ?? (await this.client.getPrinterAttributes(undefined, signal));
    this.attributes = printer;
    const { attributes, dropped } = ticketToIpp(job.ticket, printer);
    for (const d of dropped) this.logger.warn({ option: d.option, reason: d.reason }, 'print option dropped');
    const request = {
      documentPath: job.documentPath,
      ...(job.documentBytes ? { documentBytes: job.documentBytes } : {}),
      documentFormat: job.documentFormat,
      jobName: job.jobName,
      ...(job.documentName ? { documentName: job.documentName } : {}),
      userName: job.userName,
      jobAttributes: attributes,
      onDocumentFlushed: job.onDocumentFlushed,
      onDocumentSent: job.onDocumentSent,
    };
    const created = supportsOperation(printer, OPERATION.CREATE_JOB)
      ? await this.createAndSend(request, job, signal)
      : await this.client.printJob(request, signal);
    this.logger.info({ printerJobId: created.jobId, dropped: dropped.length }, 'job accepted by printer');
    const notApplied = notAppliedLines(dropped);
    const state = created.jobState === undefined ? undefined : JOB_STATES[created.jobState];
    return {
      printerJobId: String(created.jobId),
      ...(notApplied.length > 0 ? { notApplied } : {}),
      ...(state ? { state } : {}),
    };
  }

  /**
   * Create-Job, then Send-Document (last-document=true). The job id goes to `onPrinterJobCreated`
   * before the document is sent. When the printer refuses the document with an IPP status, the
   * empty job is cancelled so it does not hold the printer; a broken connection leaves it to the
   * caller, who knows whether the whole document went out.
   */
  private async createAndSend(request: IppJobRequest, job: BackendJob, signal?: AbortSignal) {
    const created = await this.client.createJob(request, signal);
    job.onPrinterJobCreated?.(String(created.jobId));
    try {
      return await this.client.sendDocument(created.jobId, request, signal);
    } catch (error) {
      if (printerAnswered(error)) {
        await this.cancel(String(created.jobId)).catch((cancelError: unknown) =>
          this.logger.warn(
            { printerJobId: created.jobId, error: (cancelError as Error).message },
            'could not cancel the job whose document the printer refused',
          ),
        );
      }
      throw error;
    }
  }

  async jobState(printerJobId: string, signal?: AbortSignal): Promise<BackendJobState> {
    return jobStateOf(await this.states.state(parseJobId(printerJobId), signal));
  }

  findJobByName(jobName: string, signal?: AbortSignal): Promise<SubmittedJob | undefined> {
    return findIppJobByName(this.client, jobName, signal);
  }

  async cancel(printerJobId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.cancelJob(parseJobId(printerJobId), signal);
    } catch (error) {
      // Already finished or gone: cancelling is then a no-op, as the interface promises.
      if (
        error instanceof IppRejectedError &&
        [STATUS.NOT_POSSIBLE, STATUS.NOT_FOUND].includes(error.statusCode)
      )
        return;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.attributes = undefined;
    this.client.close();
  }
}

function parseJobId(printerJobId: string): number {
  const id = Number(printerJobId);
  if (!Number.isInteger(id) || id <= 0)
    throw new ValidationError('printerJobId', 'must be a positive integer');
  return id;
}
