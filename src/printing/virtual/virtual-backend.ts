/**
 * The backend for `virtual://<name>[?output=<dir>]`: starts an in-process VirtualPrinter on a
 * loopback ephemeral port (documents in `<dataDir>/printed` unless `output` says otherwise) on
 * first use and talks to it through an IppBackend, so the whole path is real IPP. close() stops
 * the printer; the caller of the registry owns close().
 */
import { join } from 'node:path';
import { ValidationError } from '../../lib/errors.js';
import type {
  BackendContext,
  BackendJob,
  BackendJobState,
  PrinterBackend,
  PrinterDescription,
  SubmittedJob,
} from '../printer-backend.js';
import { IppBackend } from '../ipp/ipp-backend.js';
import { VirtualPrinter } from './virtual-printer.js';

/** Parses virtual://<name>?output=<dir>; the name must be 1-64 of [A-Za-z0-9._-]. */
export function parseVirtualUri(uri: URL, dataDir: string): { name: string; outputDir: string } {
  const name = decodeURIComponent(uri.hostname || uri.pathname.replace(/^\/+/, ''));
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
    throw new ValidationError('uri', 'virtual printer name must be 1-64 characters of A-Z a-z 0-9 . _ -');
  }
  return { name, outputDir: uri.searchParams.get('output') ?? join(dataDir, 'printed') };
}

/** A PrinterBackend over a private VirtualPrinter; started lazily, stopped by close(). */
export class VirtualBackend implements PrinterBackend {
  readonly printer: VirtualPrinter;
  private readonly logger: BackendContext['logger'];
  private inner: Promise<IppBackend> | undefined;
  /** Jobs go through an IppBackend, which reports the document sent. */
  readonly reportsDocumentSent = true;
  readonly sendsDocumentBytes = true;

  constructor(
    readonly uri: string,
    context: BackendContext,
  ) {
    const { name, outputDir } = parseVirtualUri(new URL(uri), context.dataDir);
    this.printer = new VirtualPrinter({ name, outputDir, logger: context.logger });
    this.logger = context.logger;
  }

  private backend(): Promise<IppBackend> {
    this.inner ??= this.printer.start().then(
      ({ uri }) => new IppBackend(uri, { logger: this.logger }),
      (error: unknown) => {
        // A failed start (output directory not writable, ...) is retried on the next call.
        this.inner = undefined;
        throw error;
      },
    );
    return this.inner;
  }

  async describe(signal?: AbortSignal): Promise<PrinterDescription> {
    const description = await (await this.backend()).describe(signal);
    return { ...description, uri: this.uri };
  }

  async submit(job: BackendJob, signal?: AbortSignal): Promise<SubmittedJob> {
    return (await this.backend()).submit(job, signal);
  }

  async jobState(printerJobId: string, signal?: AbortSignal): Promise<BackendJobState> {
    return (await this.backend()).jobState(printerJobId, signal);
  }

  async findJobByName(jobName: string, signal?: AbortSignal): Promise<SubmittedJob | undefined> {
    return (await this.backend()).findJobByName(jobName, signal);
  }

  async cancel(printerJobId: string, signal?: AbortSignal): Promise<void> {
    return (await this.backend()).cancel(printerJobId, signal);
  }

  async close(): Promise<void> {
    const inner = this.inner;
    this.inner = undefined;
    if (inner) await (await inner.catch(() => undefined))?.close();
    await this.printer.stop();
  }
}
