/**
 * PrinterBackend: what the agent needs from a printer, whatever sits behind it (IPP, CUPS, the
 * Windows spooler, the built-in virtual printer). Backends are chosen by URI scheme in
 * printing/backend-registry.ts. Errors: RetryableError (busy, unreachable: try again later) or
 * PermanentError (rejected: trying again will not help), from lib/errors.ts.
 */
import type { Logger } from '../log/logger.js';
import type { PrintTicket } from '../protocol/print-ticket.js';

/** Printer attributes by IPP name, values as decoded (string, number, boolean, object, or arrays of them). */
export type PrinterAttributes = Record<string, unknown>;

export type PrinterState = 'idle' | 'processing' | 'stopped';

export interface PrinterDescription {
  /** The URI the backend was made for. */
  uri: string;
  /** printer-name or queue name. */
  name: string;
  makeAndModel: string;
  state: PrinterState;
  stateReasons: string[];
  /** printer-uuid (urn:uuid:...) when the printer reports one. */
  uuid?: string;
  /** IEEE 1284 device id when known. */
  deviceId?: string;
  location?: string;
  documentFormats: string[];
  /** Everything the printer reported, for capability translation. */
  attributes: PrinterAttributes;
}

export interface BackendJob {
  /**
   * Path of the spooled document; backends stream it, never read it whole. With `documentBytes`
   * given to a backend that `sendsDocumentBytes`, no file need exist there (a small document is
   * kept in memory only).
   */
  documentPath: string;
  /**
   * The document's bytes, when the agent holds them in memory (a small document, checked against
   * its SHA-256): a backend that `sendsDocumentBytes` sends these and never reads the file.
   */
  documentBytes?: Buffer;
  /** MIME type (application/pdf, text/plain, ...). */
  documentFormat: string;
  jobName: string;
  /** The original document name (the app's alias), sent as IPP document-name when known. */
  documentName?: string;
  userName: string;
  ticket: PrintTicket;
  /**
   * Called once every byte of the document is with the operating system (which delivers it even
   * if the agent dies the next instant), before the printer's answer. A backend whose
   * `reportsDocumentSent` is true calls it; after a crash it tells a printer job that may hold the
   * whole document from one that certainly holds only part of it (docs/agent-jobs.md).
   */
  onDocumentFlushed?: () => void;
  /**
   * Called once the printer has the document: every byte went to the operating system and the
   * printer answered the request carrying it with success. Never earlier (docs/agent-jobs.md,
   * "When a document counts as sent").
   */
  onDocumentSent?: () => void;
  /**
   * Called with the printer's job id when the printer created the job before any of the document
   * was sent (IPP Create-Job). The agent records it, so after a crash it knows which printer job
   * holds an incomplete document, and cancels it before sending again.
   */
  onPrinterJobCreated?: (printerJobId: string) => void;
}

export interface SubmittedJob {
  /** The printer's own job id, as a string. */
  printerJobId: string;
  /** Options of the ticket the printer could not honour, one line each for the user (notAppliedLines). */
  notApplied?: string[];
  /** The job's state in the printer's answer to the submission, when it gave one. */
  state?: BackendJobStateName;
}

export type BackendJobStateName =
  | 'pending'
  | 'held'
  | 'processing'
  | 'stopped'
  | 'completed'
  | 'cancelled'
  | 'aborted';

export interface BackendJobState {
  state: BackendJobStateName;
  reasons: string[];
  pagesCompleted?: number;
  /** Pages including copies when the printer knows it. */
  pagesTotal?: number;
  /**
   * How much of the document the printer processed, in K octets (1024 bytes, rounded up), once
   * the job ended, where the printer reports it (IPP `job-k-octets-processed`, else `job-k-octets`).
   */
  kOctets?: number;
}

export interface PrinterBackend {
  readonly uri: string;
  /** True when submit() calls `onDocumentFlushed` and `onDocumentSent` (IPP); recovery relies on them. */
  readonly reportsDocumentSent?: boolean;
  /**
   * True when submit() sends `documentBytes` where given, never reading `documentPath` then (IPP):
   * a small document needs no spool file. A backend that hands a file to another program (CUPS
   * `lp`, Windows) leaves it out and always gets the file.
   */
  readonly sendsDocumentBytes?: boolean;
  /** Reads the printer's identity, state and capabilities. */
  describe(signal?: AbortSignal): Promise<PrinterDescription>;
  /** Sends a document; resolves when the printer accepted it. */
  submit(job: BackendJob, signal?: AbortSignal): Promise<SubmittedJob>;
  /** The state of a job this backend submitted. */
  jobState(printerJobId: string, signal?: AbortSignal): Promise<BackendJobState>;
  /**
   * Finds the newest job with this job-name at the printer (undefined when none), so a job
   * interrupted between Print-Job and recording its id is watched instead of printed twice.
   * Optional: a backend that cannot ask its printer leaves it out, and such a job fails.
   */
  findJobByName?(jobName: string, signal?: AbortSignal): Promise<SubmittedJob | undefined>;
  /** Cancels a job this backend submitted (no error when it already ended). */
  cancel(printerJobId: string, signal?: AbortSignal): Promise<void>;
  /** Releases connections; the backend is not used afterwards. */
  close(): Promise<void>;
}

/** What a backend factory may use besides the URI. */
export interface BackendContext {
  /** The agent's state directory (the virtual printer writes to <dataDir>/printed by default). */
  dataDir: string;
  logger: Logger;
}

/** Makes a backend for a URI; registered per scheme. */
export type BackendFactory = (uri: URL, context: BackendContext) => PrinterBackend;

/** True for job states after which nothing more will happen. */
export function isFinalJobState(state: BackendJobStateName): boolean {
  return state === 'completed' || state === 'cancelled' || state === 'aborted';
}
