/**
 * PrinterBackend for winspool://NAME (a printer of the Windows spooler). describe(), jobState()
 * and cancel() use PowerShell queries through one injectable CommandRunner (windows-queries.ts);
 * submit() prints the PDF with pdf-to-printer (SumatraPDF, loaded lazily so other platforms
 * never load it) and then finds the new spooler job by its document name. Holds no processes
 * between calls: close() only forgets the cached attributes.
 */
import { basename } from 'node:path';
import { PermanentError, RetryableError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type {
  BackendContext,
  BackendJob,
  BackendJobState,
  PrinterAttributes,
  PrinterBackend,
  PrinterDescription,
  SubmittedJob,
} from '../printer-backend.js';
import { describePrinter } from '../ipp/ipp-backend.js';
import { type CommandRunner, ExecFileRunner, PowerShell, psQuote } from './command-runner.js';
import { notAppliedLines } from '../translate/ticket-to-ipp.js';
import { type PdfPrintOptions, ticketToPdfOptions } from './pdf-print-options.js';
import { windowsJobState, windowsPrinterAttributes, winspoolName } from './windows-attributes.js';
import { readJobs, readSnapshot, removeJobScript, type WinPrintJob } from './windows-queries.js';

/** pdf-to-printer's print(). */
export type PdfPrintFunction = (pdf: string, options: PdfPrintOptions) => Promise<void>;

/** Options of a WinspoolBackend. */
export interface WinspoolBackendOptions {
  logger: Logger;
  /** Runs powershell.exe; tests pass a runner replaying recorded outputs. */
  runner?: CommandRunner;
  /** pdf-to-printer's print(); default: loaded from the package on first submit. */
  printPdf?: PdfPrintFunction;
}

/** The prefix of a job id for a document that had already left the spooler when submit() looked. */
const LEFT_QUEUE_PREFIX = 'spooled:';

/** The backend for one Windows printer. Construct per printer; close() when done. */
export class WinspoolBackend implements PrinterBackend {
  private readonly name: string;
  private readonly ps: PowerShell;
  private readonly logger: Logger;
  private attributes: PrinterAttributes | undefined;

  constructor(
    readonly uri: string,
    private readonly options: WinspoolBackendOptions,
  ) {
    const name = winspoolName(uri);
    if (!name)
      throw new ValidationError('uri', 'must be winspool://NAME with the printer name percent-encoded');
    this.name = name;
    this.ps = new PowerShell(options.runner ?? new ExecFileRunner());
    this.logger = options.logger.child({ printer: `winspool://${name}` });
  }

  async describe(signal?: AbortSignal): Promise<PrinterDescription> {
    this.attributes = windowsPrinterAttributes(await readSnapshot(this.ps, this.name, signal));
    return describePrinter(this.uri, this.attributes);
  }

  async submit(job: BackendJob, signal?: AbortSignal): Promise<SubmittedJob> {
    if (job.documentFormat !== 'application/pdf') {
      throw new PermanentError(
        'format_not_supported',
        `winspool printers take application/pdf only (got ${job.documentFormat})`,
      );
    }
    if (!this.attributes) await this.describe(signal);
    const { options, dropped } = ticketToPdfOptions(this.name, job.ticket, this.attributes ?? {});
    for (const d of dropped) this.logger.warn({ option: d.option, reason: d.reason }, 'print option dropped');
    const before = new Set((await readJobs(this.ps, this.name, signal)).map((j) => j.Id));
    const print = this.options.printPdf ?? (await loadPdfToPrinter());
    try {
      await print(job.documentPath, options);
    } catch (error) {
      throw new RetryableError(
        'winspool_print_failed',
        `pdf-to-printer failed for ${this.name}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    const created = newestJob(await readJobs(this.ps, this.name, signal), before, basename(job.documentPath));
    const printerJobId = created ? String(created.Id) : `${LEFT_QUEUE_PREFIX}${basename(job.documentPath)}`;
    this.logger.info({ printerJobId, dropped: dropped.length }, 'job handed to the Windows spooler');
    const notApplied = notAppliedLines(dropped);
    return { printerJobId, ...(notApplied.length > 0 ? { notApplied } : {}) };
  }

  async jobState(printerJobId: string, signal?: AbortSignal): Promise<BackendJobState> {
    if (printerJobId.startsWith(LEFT_QUEUE_PREFIX)) return windowsJobState(undefined);
    const id = parseJobId(printerJobId);
    return windowsJobState((await readJobs(this.ps, this.name, signal)).find((j) => j.Id === id));
  }

  async cancel(printerJobId: string, signal?: AbortSignal): Promise<void> {
    if (printerJobId.startsWith(LEFT_QUEUE_PREFIX)) return;
    const id = parseJobId(printerJobId);
    if (!(await readJobs(this.ps, this.name, signal)).some((j) => j.Id === id)) return;
    await this.ps.json(removeJobScript(this.name, id), `Remove-PrintJob ${psQuote(this.name)} ${id}`, signal);
  }

  async close(): Promise<void> {
    this.attributes = undefined;
  }
}

/** Registry factory for the winspool scheme. */
export function winspoolBackendFactory(url: URL, context: BackendContext): PrinterBackend {
  return new WinspoolBackend(url.href, { logger: context.logger });
}

/** The job submit() created: not seen before, preferably with the document's name, newest first. */
export function newestJob(
  jobs: WinPrintJob[],
  before: Set<number>,
  documentName: string,
): WinPrintJob | undefined {
  const fresh = jobs.filter((j) => !before.has(j.Id)).sort((a, b) => b.Id - a.Id);
  return fresh.find((j) => j.DocumentName === documentName) ?? fresh[0];
}

async function loadPdfToPrinter(): Promise<PdfPrintFunction> {
  const mod = (await import('pdf-to-printer')) as unknown as {
    print?: PdfPrintFunction;
    default?: { print?: PdfPrintFunction };
  };
  const print = mod.print ?? mod.default?.print;
  if (!print) throw new PermanentError('winspool_unavailable', 'pdf-to-printer has no print() export');
  return print;
}

function parseJobId(printerJobId: string): number {
  const id = Number(printerJobId);
  if (!Number.isInteger(id) || id <= 0)
    throw new ValidationError('printerJobId', 'must be a positive integer (a spooler job id)');
  return id;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
