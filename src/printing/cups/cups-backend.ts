/**
 * PrinterBackend for cups://QUEUE. Identity, state and capabilities come from CUPS's own IPP
 * endpoint of the queue (ipp://host:631/printers/QUEUE, through the shared IppClient), so the
 * capability translation sees the same IPP attributes as for a network printer. Documents go
 * through `lp` (unix-print, see lp-submit.ts) so CUPS filters and drivers apply as for any
 * desktop job; job state and cancel use CUPS's IPP again. Holds no connections: close() only
 * forgets the cached queue attributes.
 */
import unixPrint from 'unix-print';
import { ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { describePrinter, findIppJobByName, jobStateOf } from '../ipp/ipp-backend.js';
import { IppClient } from '../ipp/ipp-client.js';
import { STATUS } from '../ipp/ipp-constants.js';
import { IppRejectedError } from '../ipp/ipp-errors.js';
import type {
  BackendContext,
  BackendJob,
  BackendJobState,
  PrinterAttributes,
  PrinterBackend,
  PrinterDescription,
  SubmittedJob,
} from '../printer-backend.js';
import { type CupsTarget, parseCupsUri } from './cups-uri.js';
import { lpCommand } from './lp-options.js';
import { LpSubmitter, type UnixPrintFunction } from './lp-submit.js';

/** Options of a CupsBackend. */
export interface CupsBackendOptions {
  logger: Logger;
  /** unix-print's print(); injectable so tests can check the arguments without a CUPS server. */
  print?: UnixPrintFunction;
  /** Per-request timeout of the IPP queries (default 15 s). */
  timeoutMs?: number;
}

/** The backend for one CUPS queue. Construct per queue; close() when done. */
export class CupsBackend implements PrinterBackend {
  private readonly target: CupsTarget;
  private readonly client: IppClient;
  private readonly lp: LpSubmitter;
  private readonly logger: Logger;
  private attributes: PrinterAttributes | undefined;

  constructor(
    readonly uri: string,
    options: CupsBackendOptions,
  ) {
    this.target = parseCupsUri(uri);
    this.logger = options.logger.child({ printer: `cups://${this.target.queue}` });
    this.client = new IppClient({
      uri: this.target.ippUri,
      logger: this.logger,
      timeoutMs: options.timeoutMs,
    });
    this.lp = new LpSubmitter(options.print ?? unixPrint.print);
  }

  /** CUPS's IPP URI of the queue. */
  get ippUri(): string {
    return this.target.ippUri;
  }

  async describe(signal?: AbortSignal): Promise<PrinterDescription> {
    this.attributes = await this.client.getPrinterAttributes(undefined, signal);
    return { ...describePrinter(this.uri, this.attributes), name: this.target.queue };
  }

  async submit(job: BackendJob, signal?: AbortSignal): Promise<SubmittedJob> {
    const queue = this.attributes ?? (await this.client.getPrinterAttributes(undefined, signal));
    this.attributes = queue;
    const command = lpCommand(this.target, job, job.ticket, queue);
    for (const d of command.dropped)
      this.logger.warn({ option: d.option, reason: d.reason }, 'print option dropped');
    const submitted = await this.lp.submit(job.documentPath, command.args, this.target.queue, signal);
    this.logger.info(
      { printerJobId: submitted.jobId, dropped: command.dropped.length },
      'job accepted by CUPS',
    );
    return { printerJobId: String(submitted.jobId) };
  }

  async jobState(printerJobId: string, signal?: AbortSignal): Promise<BackendJobState> {
    return jobStateOf(await this.client.getJobAttributes(parseJobId(printerJobId), signal));
  }

  findJobByName(jobName: string, signal?: AbortSignal): Promise<SubmittedJob | undefined> {
    return findIppJobByName(this.client, jobName, signal);
  }

  async cancel(printerJobId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.cancelJob(parseJobId(printerJobId), signal);
    } catch (error) {
      // CUPS answers not-possible for a job that already ended: cancelling is then a no-op.
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
  }
}

/** Registry factory for the cups scheme. */
export function cupsBackendFactory(url: URL, context: BackendContext): PrinterBackend {
  return new CupsBackend(url.href, { logger: context.logger });
}

function parseJobId(printerJobId: string): number {
  const id = Number(printerJobId);
  if (!Number.isInteger(id) || id <= 0)
    throw new ValidationError('printerJobId', 'must be a positive integer (a CUPS job id)');
  return id;
}
