/**
 * PrinterBackend for cups://QUEUE. Identity, state and capabilities come from CUPS's own IPP
 * endpoint of the queue (ipp://host:631/printers/QUEUE, through the shared IppClient), so the
 * capability translation sees the same IPP attributes as for a network printer. Documents go
 * through `lp` (unix-print, see lp-submit.ts) so CUPS filters and drivers apply as for any
 * desktop job; job state, lookup by name and cancel are the queue's IPP endpoint served by an
 * IppBackend. close() forgets the cached queue attributes and closes its IPP connections.
 * unix-print is imported on the first document, so an agent without cups:// printers never
 * loads it.
 */
import type { Logger } from '../../log/logger.js';
import { IppBackend } from '../ipp/ipp-backend.js';
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
import { notAppliedLines } from '../translate/ticket-to-ipp.js';
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

/** unix-print's print(), imported when the first document goes to a CUPS queue. */
const printWithLp: UnixPrintFunction = async (file, printer, options) =>
  (await import('unix-print')).default.print(file, printer, options);

/** The backend for one CUPS queue. Construct per queue; close() when done. */
export class CupsBackend implements PrinterBackend {
  private readonly target: CupsTarget;
  /** The queue as an IPP printer (ipp://host:631/printers/QUEUE). */
  private readonly queueIpp: IppBackend;
  private readonly lp: LpSubmitter;
  private readonly logger: Logger;
  private attributes: PrinterAttributes | undefined;

  constructor(
    readonly uri: string,
    options: CupsBackendOptions,
  ) {
    this.target = parseCupsUri(uri);
    this.logger = options.logger.child({ printer: `cups://${this.target.queue}` });
    this.queueIpp = new IppBackend(this.target.ippUri, { logger: this.logger, timeoutMs: options.timeoutMs });
    this.lp = new LpSubmitter(options.print ?? printWithLp);
  }

  /** CUPS's IPP URI of the queue. */
  get ippUri(): string {
    return this.target.ippUri;
  }

  async describe(signal?: AbortSignal): Promise<PrinterDescription> {
    const description = await this.queueIpp.describe(signal);
    this.attributes = description.attributes;
    return { ...description, uri: this.uri, name: this.target.queue };
  }

  async submit(job: BackendJob, signal?: AbortSignal): Promise<SubmittedJob> {
    const queue = this.attributes ?? (await this.queueIpp.ipp.getPrinterAttributes(undefined, signal));
    this.attributes = queue;
    const command = lpCommand(this.target, job, job.ticket, queue);
    for (const d of command.dropped)
      this.logger.warn({ option: d.option, reason: d.reason }, 'print option dropped');
    const submitted = await this.lp.submit(job.documentPath, command.args, this.target.queue, signal);
    this.logger.info(
      { printerJobId: submitted.jobId, dropped: command.dropped.length },
      'job accepted by CUPS',
    );
    const notApplied = notAppliedLines(command.dropped);
    return { printerJobId: String(submitted.jobId), ...(notApplied.length > 0 ? { notApplied } : {}) };
  }

  jobState(printerJobId: string, signal?: AbortSignal): Promise<BackendJobState> {
    return this.queueIpp.jobState(printerJobId, signal);
  }

  findJobByName(jobName: string, signal?: AbortSignal): Promise<SubmittedJob | undefined> {
    return this.queueIpp.findJobByName(jobName, signal);
  }

  /** Cancels through CUPS's IPP; a job that already ended is a no-op. */
  cancel(printerJobId: string, signal?: AbortSignal): Promise<void> {
    return this.queueIpp.cancel(printerJobId, signal);
  }

  async close(): Promise<void> {
    this.attributes = undefined;
    await this.queueIpp.close();
  }
}

/** Registry factory for the cups scheme. */
export function cupsBackendFactory(url: URL, context: BackendContext): PrinterBackend {
  return new CupsBackend(url.href, { logger: context.logger });
}
